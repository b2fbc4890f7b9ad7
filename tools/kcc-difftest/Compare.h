//===- Compare.h - dtype-aware comparison of outputs --------------*- C++
//-*-===//
//
// Compares an output of one leg (the GPU) with the reference (the
// interpreter): exactly for integers and booleans, within
// |got - ref| <= atol + rtol * |ref| for floats. docs/difftest.md justifies
// the default tolerances. Plain C++17.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_DIFFTEST_COMPARE_H
#define KCC_TOOLS_DIFFTEST_COMPARE_H

#include "interp/Npy.h"

#include <string>

namespace kcc::difftest {

struct Tolerance {
  double rtol = 0, atol = 0;
};

/// The default tolerance for an output of type `type` fed by reductions of
/// `reduction` elements (1: none). Integers are exact.
Tolerance defaultTolerance(interp::DType type, int64_t reduction);

struct Comparison {
  bool ok = false;
  /// "max abs err 1e-07, max rel err 3e-06" on success; otherwise the first
  /// mismatch, its index and values, the mismatch count and the maxima.
  std::string summary;
};

Comparison compareArrays(const std::string &name, const interp::NpyArray &ref,
                         const interp::NpyArray &got, Tolerance tol);

/// Element `i` of `array` as a double (integers converted, i1 as 0/1).
double elementAsDouble(const interp::NpyArray &array, int64_t i);
/// Element `i` printed with enough digits to round-trip its type.
std::string formatElement(const interp::NpyArray &array, int64_t i);

} // namespace kcc::difftest

#endif
