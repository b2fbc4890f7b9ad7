//===- Inputs.h - input generators of kcc-difftest ----------------*- C++
//-*-===//
//
// Fills a buffer as its case says: a constant, iota (start + i * step) or
// seeded uniform random values. The generator is splitmix64 so a seed gives
// the same data with every standard library; values are rounded to the
// buffer's type (integers: uniform in [min, max], inclusive).
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_DIFFTEST_INPUTS_H
#define KCC_TOOLS_DIFFTEST_INPUTS_H

#include "tools/kcc-difftest/CaseFile.h"

#include "interp/Npy.h"

namespace kcc::difftest {

/// Fills `array` (dtype and shape set, data sized) per `init`.
void fillBuffer(const InitSpec &init, interp::NpyArray &array);

} // namespace kcc::difftest

#endif
