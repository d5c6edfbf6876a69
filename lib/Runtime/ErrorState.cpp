//===- ErrorState.cpp - Per-thread error messages and pending errors ------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "ErrorState.h"

#include <algorithm>
#include <cstring>

using namespace pointwise::runtime;

namespace {
constexpr size_t kMessageCapacity = 4096;

struct ThreadErrorState {
  char lastMessage[kMessageCapacity];
  char pendingMessage[kMessageCapacity];
  pwStatus pendingStatus;
};

// Zero-initialized and trivially destructible: no guard, no destructor.
thread_local ThreadErrorState errorState;

void copyMessage(char (&to)[kMessageCapacity], const char *from,
                 size_t length) {
  length = std::min(length, kMessageCapacity - 1);
  std::memcpy(to, from, length);
  to[length] = '\0';
}
} // namespace

pwStatus pointwise::runtime::recordError(pwStatus status,
                                         const std::string &message) {
  copyMessage(errorState.lastMessage, message.data(), message.size());
  return status;
}

pwStatus pointwise::runtime::recordNullArgument(const char *caller,
                                                const char *argument) {
  return recordError(PW_ERROR_INVALID_VALUE,
                     std::string(caller) + ": `" + argument + "` is null");
}

pwStatus pointwise::runtime::recordPendingFailure(pwStatus status) {
  ThreadErrorState &state = errorState;
  if (state.pendingStatus != PW_SUCCESS)
    return status;
  state.pendingStatus = status;
  copyMessage(state.pendingMessage, state.lastMessage,
              std::strlen(state.lastMessage));
  return status;
}

pwStatus pointwise::runtime::takePendingError() {
  ThreadErrorState &state = errorState;
  pwStatus status = state.pendingStatus;
  if (status == PW_SUCCESS)
    return status;
  state.pendingStatus = PW_SUCCESS;
  copyMessage(state.lastMessage, state.pendingMessage,
              std::strlen(state.pendingMessage));
  return status;
}

void pointwise::runtime::clearPendingError() {
  errorState.pendingStatus = PW_SUCCESS;
}

const char *pwGetStatusName(pwStatus status) {
  switch (status) {
  case PW_SUCCESS:
    return "PW_SUCCESS";
  case PW_ERROR_INVALID_VALUE:
    return "PW_ERROR_INVALID_VALUE";
  case PW_ERROR_NO_DRIVER:
    return "PW_ERROR_NO_DRIVER";
  case PW_ERROR_NO_DEVICE:
    return "PW_ERROR_NO_DEVICE";
  case PW_ERROR_DRIVER:
    return "PW_ERROR_DRIVER";
  case PW_ERROR_LAYOUT:
    return "PW_ERROR_LAYOUT";
  case PW_ERROR_NOT_FOUND:
    return "PW_ERROR_NOT_FOUND";
  case PW_ERROR_OUT_OF_MEMORY:
    return "PW_ERROR_OUT_OF_MEMORY";
  case PW_STATUS_FORCE_INT32:
    break;
  }
  return "PW_ERROR_UNKNOWN";
}

const char *pwGetLastErrorMessage() { return errorState.lastMessage; }

pwStatus pwTakePendingError() { return takePendingError(); }
