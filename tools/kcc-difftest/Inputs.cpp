//===- Inputs.cpp - input generators of kcc-difftest ----------------------===//
#include "tools/kcc-difftest/Inputs.h"

#include "interp/Element.h"

#include <cmath>

using namespace kcc::interp;
using namespace kcc::difftest;

namespace {
uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A double in [0, 1) from the top 53 bits.
double unit(uint64_t &state) {
  return static_cast<double>(splitmix64(state) >> 11) * 0x1.0p-53;
}

int64_t clampToInt(double v, DType type) {
  if (type == DType::i1)
    return v != 0 ? -1 : 0;
  double lo = -std::ldexp(1.0, intWidth(type) - 1);
  double hi = std::ldexp(1.0, intWidth(type) - 1) - 1;
  if (std::isnan(v))
    return 0;
  return static_cast<int64_t>(std::fmin(std::fmax(std::trunc(v), lo), hi));
}
} // namespace

void kcc::difftest::fillBuffer(const InitSpec &init, NpyArray &array) {
  int64_t n = array.numElements();
  uint64_t state = init.seed;
  bool f = isFloat(array.dtype);
  uint8_t *base = array.data.data();
  for (int64_t i = 0; i < n; ++i) {
    double v = 0;
    switch (init.kind) {
    case InitSpec::Constant:
      v = init.value;
      break;
    case InitSpec::List:
      v = init.values[i];
      break;
    case InitSpec::Iota:
      v = init.start + static_cast<double>(i) * init.step;
      break;
    case InitSpec::Uniform:
      if (f) {
        v = init.min + (init.max - init.min) * unit(state);
      } else {
        double lo = std::ceil(init.min), hi = std::floor(init.max);
        double span = hi - lo + 1;
        v = span > 0 ? lo + std::floor(unit(state) * span) : lo;
      }
      break;
    }
    if (f)
      storeFloatElement(base, array.dtype, i, roundToFloat(v, array.dtype));
    else
      storeIntElement(base, array.dtype, i, clampToInt(v, array.dtype));
  }
}
