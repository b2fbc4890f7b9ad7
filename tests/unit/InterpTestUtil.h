// Kernel arguments for unit tests that run kernels on the interpreter.
#ifndef KCC_TESTS_UNIT_INTERPTESTUTIL_H
#define KCC_TESTS_UNIT_INTERPTESTUTIL_H

#include "interp/Interpreter.h"

namespace kcc::interp::test {

/// A pointer to the start of buffers[`buffer`].
inline KernelArg ptr(unsigned buffer) {
  KernelArg a;
  a.isPointer = true;
  a.buffer = buffer;
  return a;
}
/// An integer scalar.
inline KernelArg i32(int64_t v) {
  KernelArg a;
  a.intValue = v;
  return a;
}

} // namespace kcc::interp::test

#endif // KCC_TESTS_UNIT_INTERPTESTUTIL_H
