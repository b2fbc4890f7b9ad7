// Unit tests for interp/Npy (NumPy .npy files) and interp/Element (f16/bf16
// rounding and bit patterns).
#include "interp/Element.h"
#include "interp/Npy.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

using namespace kcc::interp;

TEST_CASE("npy: header as numpy writes it, round trip") {
  NpyArray a;
  a.dtype = DType::f32;
  a.shape = {2, 3};
  a.data.resize(24);
  for (int i = 0; i < 6; ++i)
    storeFloatElement(a.data.data(), DType::f32, i, i * 0.5);
  std::string bytes = encodeNpy(a);
  CHECK(bytes.substr(0, 6) == "\x93NUMPY");
  CHECK(bytes[6] == 1);
  CHECK((bytes.size() - 24) % 64 == 0); // header padded to 64 bytes
  CHECK(bytes.find(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") !=
        std::string::npos);
  NpyArray b;
  std::string error;
  REQUIRE(decodeNpy(bytes, std::nullopt, b, error));
  CHECK(b.dtype == DType::f32);
  CHECK(b.shape == std::vector<int64_t>{2, 3});
  CHECK(b.data == a.data);

  a.shape = {6};
  CHECK(encodeNpy(a).find("'shape': (6,)") != std::string::npos);
}

TEST_CASE("npy: every dtype") {
  const std::pair<DType, const char *> types[] = {
      {DType::i1, "|b1"},     {DType::i8, "|i1"},    {DType::i16, "<i2"},
      {DType::i32, "<i4"},    {DType::i64, "<i8"},   {DType::f16, "<f2"},
      {DType::f32, "<f4"},    {DType::f64, "<f8"},   {DType::bf16, "<u2"},
      {DType::f8e4m3, "|u1"}, {DType::f8e5m2, "|u1"}};
  for (auto [t, descr] : types) {
    NpyArray a;
    a.dtype = t;
    a.shape = {3};
    a.data.assign(3 * dtypeSize(t), 1);
    std::string bytes = encodeNpy(a);
    CHECK(bytes.find(descr) != std::string::npos);
    NpyArray b;
    std::string error;
    std::optional<DType> pattern;
    if (isBitPatternType(t))
      pattern = t;
    REQUIRE(decodeNpy(bytes, pattern, b, error));
    CHECK(b.dtype == t);
  }
}

TEST_CASE("npy: errors") {
  NpyArray a, b;
  std::string error;
  CHECK_FALSE(decodeNpy("not numpy", std::nullopt, b, error));
  CHECK(error.find("bad magic") != std::string::npos);
  a.dtype = DType::bf16;
  a.shape = {1};
  a.data.assign(2, 0);
  // <u2 without the .bf16.npy name is refused, not guessed.
  CHECK_FALSE(decodeNpy(encodeNpy(a), std::nullopt, b, error));
  CHECK(error.find("bf16") != std::string::npos);
  a.dtype = DType::f32;
  a.data.assign(4, 0);
  std::string bytes = encodeNpy(a);
  bytes.pop_back(); // truncated data
  CHECK_FALSE(decodeNpy(bytes, std::nullopt, b, error));
  CHECK(error.find("need 4") != std::string::npos);
  std::string be = encodeNpy(a);
  be.replace(be.find("<f4"), 3, ">f4");
  CHECK_FALSE(decodeNpy(be, std::nullopt, b, error));
  CHECK(error.find("little-endian") != std::string::npos);
  std::string fortran = encodeNpy(a);
  fortran.replace(fortran.find("False"), 5, "True ");
  CHECK_FALSE(decodeNpy(fortran, std::nullopt, b, error));
  CHECK(writeNpyFile("/nonexistent-dir/x.npy", a, error) == false);
  a.dtype = DType::bf16;
  a.data.assign(2, 0);
  CHECK_FALSE(writeNpyFile("/tmp/x.npy", a, error)); // bf16 needs .bf16.npy
}

TEST_CASE("npy: 8-bit floats are |u1 bytes named by the file's suffix") {
  CHECK(npySuffix(DType::f8e4m3) == ".f8e4m3.npy");
  CHECK(npySuffix(DType::f8e5m2) == ".f8e5m2.npy");
  CHECK(npySuffix(DType::bf16) == ".bf16.npy");
  CHECK(npySuffix(DType::f32) == ".npy");
  CHECK(bitPatternTypeOfPath("d/input.x.f8e5m2.npy") == DType::f8e5m2);
  CHECK(bitPatternTypeOfPath("d/input.x.f8e4m3.npy") == DType::f8e4m3);
  CHECK(bitPatternTypeOfPath("d/input.x.npy") == std::nullopt);
  CHECK(bitPatternTypeOfPath("d/x.f8e4m3fnuz.npy") == DType::f8e4m3fnuz);
  CHECK(bitPatternTypeOfPath("d/x.f8e5m2fnuz.npy") == DType::f8e5m2fnuz);

  NpyArray a, b;
  std::string error;
  a.dtype = DType::f8e4m3;
  a.shape = {2};
  a.data = {0x7e, 0x80};
  std::string bytes = encodeNpy(a);
  CHECK(bytes.find("'descr': '|u1'") != std::string::npos);
  REQUIRE(decodeNpy(bytes, DType::f8e4m3, b, error));
  CHECK(b.data == a.data);
  // The same bytes read as the other format: the suffix decides.
  REQUIRE(decodeNpy(bytes, DType::f8e5m2, b, error));
  CHECK(b.dtype == DType::f8e5m2);
  // |u1 without an f8 name is refused, not guessed; nor is it bf16.
  CHECK_FALSE(decodeNpy(bytes, std::nullopt, b, error));
  CHECK(error.find("*.f8e4m3.npy, *.f8e5m2.npy, *.f8e4m3fnuz.npy or "
                   "*.f8e5m2fnuz.npy") != std::string::npos);
  CHECK_FALSE(decodeNpy(bytes, DType::bf16, b, error));
  // An f8 file must hold |u1.
  a.dtype = DType::i8;
  CHECK_FALSE(decodeNpy(encodeNpy(a), DType::f8e5m2, b, error));
  CHECK(error.find("must hold dtype |u1") != std::string::npos);
  a.dtype = DType::f8e5m2;
  CHECK_FALSE(writeNpyFile("/tmp/x.npy", a, error));
  CHECK(error.find(".f8e5m2.npy") != std::string::npos);
  CHECK_FALSE(writeNpyFile("/tmp/x.f8e4m3.npy", a, error));
  a.dtype = DType::f32;
  a.data.assign(8, 0);
  CHECK_FALSE(writeNpyFile("/tmp/x.f8e4m3.npy", a, error));
}

/// Every pair of neighbours (lo, hi) of a format: the midpoint rounds to
/// the even one, a double just off it to the nearer one, on both signs.
template <typename Value>
void checkNeighbours(unsigned last, Value value, DType type) {
  for (unsigned bits = 0; bits < last; ++bits) {
    double lo = value(bits), hi = value(bits + 1);
    double mid = (lo + hi) / 2; // exact in double
    double even = bits % 2 ? hi : lo;
    for (double sign : {1.0, -1.0}) {
      REQUIRE(roundToFloat(sign * lo, type) == sign * lo);
      REQUIRE(roundToFloat(sign * mid, type) == sign * even);
      REQUIRE(roundToFloat(sign * std::nextafter(mid, hi), type) == sign * hi);
      REQUIRE(roundToFloat(sign * std::nextafter(mid, lo), type) == sign * lo);
    }
  }
}

TEST_CASE("f16 and bf16 rounding: every pair of neighbours") {
  // f16: 0 .. the largest finite (0x7bff).
  checkNeighbours(
      0x7bff, [](unsigned b) { return fromHalfBits(b); }, DType::f16);
  // bf16: the top half of an f32, 0 .. the largest finite (0x7f7f).
  auto bf16 = [](unsigned b) {
    uint32_t u = b << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return double(f);
  };
  checkNeighbours(0x7f7f, bf16, DType::bf16);
  // Past the largest finite: below its half quantum up it stays, from there
  // on it is infinite.
  CHECK(roundToFloat(0x1.fefffffp127, DType::bf16) == 0x1.fep127);
  CHECK(std::isinf(roundToFloat(0x1.ffp127, DType::bf16)));
  CHECK(roundToFloat(std::ldexp(1.0, -135), DType::bf16) == 0.0); // below
  CHECK(roundToFloat(std::ldexp(1.0, -1000), DType::f16) == 0.0);
  CHECK(std::isinf(roundToFloat(1e300, DType::f16)));
}

TEST_CASE("f16: round to nearest even, overflow, subnormals") {
  CHECK(roundToFloat(2049.0, DType::f16) == 2048.0); // tie -> even
  CHECK(roundToFloat(2051.0, DType::f16) == 2052.0); // tie -> even
  CHECK(roundToFloat(2049.5, DType::f16) == 2050.0); // above the tie
  CHECK(roundToFloat(65519.0, DType::f16) == 65504.0);
  CHECK(std::isinf(roundToFloat(65520.0, DType::f16)));
  CHECK(roundToFloat(std::ldexp(1.0, -25), DType::f16) == 0.0); // tie -> 0
  CHECK(roundToFloat(std::ldexp(3.0, -26), DType::f16) == std::ldexp(1.0, -24));
  CHECK(std::signbit(roundToFloat(-1e-30, DType::f16)));
  CHECK(std::isnan(roundToFloat(NAN, DType::f16)));
  CHECK(toHalfBits(1.0) == 0x3c00);
  CHECK(toHalfBits(-2.0) == 0xc000);
  CHECK(toHalfBits(65504.0) == 0x7bff);
  CHECK(toHalfBits(std::ldexp(1.0, -24)) == 0x0001);
  CHECK(toHalfBits(INFINITY) == 0x7c00);
  CHECK((toHalfBits(NAN) & 0x7c00) == 0x7c00);
  // Every finite f16 bit pattern survives decode -> encode.
  for (unsigned bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7c00) == 0x7c00)
      continue;
    double v = fromHalfBits(static_cast<uint16_t>(bits));
    REQUIRE(roundToFloat(v, DType::f16) == v);
    REQUIRE(toHalfBits(v) == bits);
  }
}

TEST_CASE("bf16: round to nearest even from f32 and double") {
  CHECK(roundToFloat(1.0 + std::ldexp(1.0, -8), DType::bf16) == 1.0); // tie
  CHECK(roundToFloat(1.0 + 3 * std::ldexp(1.0, -8), DType::bf16) ==
        1.0 + std::ldexp(1.0, -6)); // tie -> even (up)
  CHECK(toBF16Bits(1.0) == 0x3f80);
  CHECK(fromBF16Bits(0x4049) == 3.140625);
  CHECK(std::isinf(roundToFloat(3.5e38, DType::bf16)));
  // No double rounding: just above a tie in double, below in f32's view.
  double x = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  CHECK(roundToFloat(x, DType::bf16) == 1.0 + std::ldexp(1.0, -7));
}

TEST_CASE("integers wrap in their width") {
  CHECK(wrapInt(200, 8) == -56);
  CHECK(wrapInt(-1, 1) == -1);
  CHECK(wrapInt(2, 1) == 0);
  CHECK(asUnsigned(-1, 8) == 255);
  uint8_t mem[8] = {};
  storeIntElement(mem, DType::i1, 0, -1);
  CHECK(mem[0] == 1); // i1 in memory is a byte 0/1
  CHECK(loadIntElement(mem, DType::i1, 0) == -1);
}
