//===- TestPasses.h - test-only passes ----------------------------*- C++ -*-===//
#ifndef KCC_TESTS_LIB_TESTPASSES_H
#define KCC_TESTS_LIB_TESTPASSES_H

#include "ir/Dialect.h"
#include "mlir/Pass/Pass.h"

namespace kcc::test {
#define GEN_PASS_DECL
#include "tests/lib/TestPasses.h.inc"

/// registerKccTestPasses(): every test pass (for kcc-opt).
#define GEN_PASS_REGISTRATION
#include "tests/lib/TestPasses.h.inc"
} // namespace kcc::test

#endif // KCC_TESTS_LIB_TESTPASSES_H
