//===- ArgumentSpec.h - pw-run's argument specifications ----------*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// What the user says about one argument of the entry function:
//
//   -                  take everything from the argument's type (a memref of
//                      static layout, or a random scalar)
//   =VALUE             a scalar: 0.5, -3, true
//   SIZES[@STRIDES][+OFFSET]
//                      a memref view: 4x8, 4x8@1,4, 3x4@-4,-1+11, ()+2 for
//                      rank 0; strides default to the type's static strides
//                      or row-major, the offset to the type's or 0
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_TOOLS_PWRUN_ARGUMENTSPEC_H
#define POINTWISE_TOOLS_PWRUN_ARGUMENTSPEC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pointwise::run {

struct ArgumentSpec {
  enum class Kind { FromType, MemRef, Scalar };
  Kind kind = Kind::FromType;
  std::vector<int64_t> sizes;
  std::optional<std::vector<int64_t>> strides;
  std::optional<int64_t> offset;
  std::string scalar;
};

/// Parses one `--arg` value; the error names the offending part.
llvm::Expected<ArgumentSpec> parseArgumentSpec(llvm::StringRef text);

} // namespace pointwise::run

#endif // POINTWISE_TOOLS_PWRUN_ARGUMENTSPEC_H
