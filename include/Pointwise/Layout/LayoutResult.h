//===- LayoutResult.h - Value-or-error layout results -----------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Every function of the layout library reports invalid input and impossible
// layouts through LayoutResult instead of exceptions or assertions: the
// library runs inside the CUDA runtime and the Python bindings, where a user
// error must come back as a message and never abort the process.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_LAYOUT_LAYOUTRESULT_H
#define POINTWISE_LAYOUT_LAYOUTRESULT_H

#include <string>
#include <utility>

namespace pointwise::layout {

/// A failure message. It converts to a failed LayoutResult of any type, so a
/// function returns `LayoutError{"..."}` whatever its result type.
struct LayoutError {
  std::string message;
};

/// Either a value of type T or an error message. Test it with `if (result)`.
/// On failure `value()` is a default-constructed T and on success `error()`
/// is empty, so a caller that forgets to test reads garbage, never UB.
template <typename T> class [[nodiscard]] LayoutResult {
public:
  LayoutResult(T value) : val(std::move(value)) {}
  LayoutResult(LayoutError error)
      : message(std::move(error.message)), failed(true) {}

  explicit operator bool() const { return !failed; }
  bool succeeded() const { return !failed; }

  T &value() & { return val; }
  const T &value() const & { return val; }
  T &&value() && { return std::move(val); }
  T &operator*() & { return val; }
  const T &operator*() const & { return val; }
  T *operator->() { return &val; }
  const T *operator->() const { return &val; }

  const std::string &error() const { return message; }

private:
  T val{};
  std::string message;
  bool failed = false;
};

/// The result of a check that produces no value: success or an error message.
template <> class [[nodiscard]] LayoutResult<void> {
public:
  LayoutResult() = default;
  LayoutResult(LayoutError error)
      : message(std::move(error.message)), failed(true) {}

  explicit operator bool() const { return !failed; }
  bool succeeded() const { return !failed; }
  const std::string &error() const { return message; }

private:
  std::string message;
  bool failed = false;
};

} // namespace pointwise::layout

#endif // POINTWISE_LAYOUT_LAYOUTRESULT_H
