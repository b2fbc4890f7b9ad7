// Unit tests for the AxisInfo lattice (passes/AxisInfo.h).
#include "passes/analysis/AxisInfo.h"

#include <doctest/doctest.h>

using kcc::AxisInfo;

TEST_CASE("axisinfo: highest power of two divisor") {
  CHECK(kcc::highestPowerOf2Divisor(1) == 1);
  CHECK(kcc::highestPowerOf2Divisor(24) == 8);
  CHECK(kcc::highestPowerOf2Divisor(-1024) == 1024);
  CHECK(kcc::highestPowerOf2Divisor(0) == kcc::kMaxDivisibility);
  CHECK(kcc::highestPowerOf2Divisor(int64_t(1) << 40) == kcc::kMaxDivisibility);
}

TEST_CASE("axisinfo: facts of constant tiles") {
  // [0,1,2,3, 8,9,10,11]: runs of 4 starting at multiples of 8.
  AxisInfo a = AxisInfo::getFromValues({8}, {0, 1, 2, 3, 8, 9, 10, 11}, 32);
  CHECK(a.getContiguity(0) == 4);
  CHECK(a.getDivisibility(0) == 8);
  CHECK(a.getConstancy(0) == 1);
  CHECK(!a.getConstantValue());

  // Equal pairs.
  AxisInfo b = AxisInfo::getFromValues({4}, {6, 6, 3, 3}, 32);
  CHECK(b.getContiguity(0) == 1);
  CHECK(b.getDivisibility(0) == 1);
  CHECK(b.getConstancy(0) == 2);

  // 2-D: rows 0..3 of 4 consecutive values, row stride 16.
  AxisInfo c = AxisInfo::getFromValues(
      {2, 4}, {16, 17, 18, 19, 32, 33, 34, 35}, 32);
  CHECK(c.getContiguity(0) == 1);
  CHECK(c.getContiguity(1) == 4);
  CHECK(c.getDivisibility(1) == 16);
  CHECK(c.getDivisibility(0) == 1); // all elements: 17 is odd

  // Consecutive modulo 2^8: 127, -128 (= 128 as i8 bits).
  AxisInfo d = AxisInfo::getFromValues({2}, {127, -128}, 8);
  CHECK(d.getContiguity(0) == 2);
}

TEST_CASE("axisinfo: divisibility inside runs") {
  // Run of 64 starting at multiples of 1024: every 16th element is divisible
  // by 16, single elements by 1.
  AxisInfo a({64}, {1024}, {1});
  CHECK(a.getDivisibilityAt(0, 64) == 1024);
  CHECK(a.getDivisibilityAt(0, 128) == 1024);
  CHECK(a.getDivisibilityAt(0, 16) == 16);
  CHECK(a.getDivisibilityAt(0, 1) == 1);
  CHECK(a.getElementDivisibility() == 1);
  // Pointers (unit 4 bytes): elements inside runs are 4*stride bytes apart.
  AxisInfo p({64}, {256}, {1}, std::nullopt, /*unit=*/4);
  CHECK(p.getDivisibilityAt(0, 1) == 4);
  CHECK(p.getDivisibilityAt(0, 8) == 32);
  CHECK(p.getDivisibilityAt(0, 64) == 256);
}

TEST_CASE("axisinfo: join is never stronger than either side") {
  AxisInfo a({128}, {1 << 30}, {1}); // arange from 0
  AxisInfo b({128}, {64}, {1});      // arange from 64
  AxisInfo j = AxisInfo::join(a, b);
  CHECK(j.getContiguity(0) == 128);
  CHECK(j.getDivisibility(0) == 64);

  // A shorter run on one side moves the run starts of the other.
  AxisInfo c({8}, {8}, {1});
  AxisInfo k = AxisInfo::join(a, c);
  CHECK(k.getContiguity(0) == 8);
  CHECK(k.getDivisibility(0) == 8);

  AxisInfo s = AxisInfo::getConstant({128}, 48);
  AxisInfo t = AxisInfo::getConstant({128}, 48);
  CHECK(AxisInfo::join(s, t).getConstantValue() == 48);
  AxisInfo u = AxisInfo::getConstant({128}, 32);
  AxisInfo su = AxisInfo::join(s, u);
  CHECK(!su.getConstantValue());
  CHECK(su.getDivisibility(0) == 16);
  CHECK(su.getConstancy(0) == 128);
}
