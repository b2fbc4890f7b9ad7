//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html magic
// "\x93NUMPY", major, minor, header length (2 bytes in 1.0, 4 in 2.0+), then a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...} padded
// with spaces and a newline to a multiple of 64 bytes.
//
//===----------------------------------------------------------------------===//
#include "interp/Npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace kcc::interp {

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

namespace {
const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

const char *descrOf(DType type) {
  switch (type) {
  case DType::i1:
    return "|b1";
  case DType::i8:
    return "|i1";
  case DType::i16:
    return "<i2";
  case DType::i32:
    return "<i4";
  case DType::i64:
    return "<i8";
  case DType::f16:
    return "<f2";
  case DType::bf16:
    return "<u2";
  case DType::f32:
    return "<f4";
  case DType::f64:
    return "<f8";
  case DType::f8e4m3:
  case DType::f8e5m2:
  case DType::f8e4m3fnuz:
  case DType::f8e5m2fnuz:
    return "|u1";
  }
  return "?";
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

/// The value of `'key': VALUE` in the header dict, up to the next top-level
/// ',' or '}' (a tuple's commas are inside parentheses).
bool dictValue(std::string_view header, std::string_view key,
               std::string_view &value) {
  std::string quoted[] = {"'" + std::string(key) + "'",
                          "\"" + std::string(key) + "\""};
  size_t pos = std::string_view::npos;
  for (const std::string &q : quoted)
    if ((pos = header.find(q)) != std::string_view::npos) {
      pos += q.size();
      break;
    }
  if (pos == std::string_view::npos)
    return false;
  while (pos < header.size() && (header[pos] == ' ' || header[pos] == ':'))
    ++pos;
  size_t end = pos;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (depth == 0 && (c == ',' || c == '}'))
      break;
  }
  value = header.substr(pos, end - pos);
  while (!value.empty() && value.back() == ' ')
    value.remove_suffix(1);
  return true;
}

bool parseShape(std::string_view text, std::vector<int64_t> &shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  text = text.substr(1, text.size() - 2);
  shape.clear();
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ','))
      ++i;
    if (i == text.size())
      break;
    if (text[i] < '0' || text[i] > '9')
      return false;
    int64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (v > (int64_t(1) << 50))
        return false; // absurd sizes are malformed files, not allocations
      v = v * 10 + (text[i++] - '0');
    }
    while (i < text.size() && text[i] == 'L') // Python 2 longs
      ++i;
    shape.push_back(v);
  }
  return true;
}
} // namespace

std::string encodeNpy(const NpyArray &array) {
  // NumPy writes "()", "(5,)" and "(2, 3)".
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(array.shape[i]);
  shape += array.shape.size() == 1 ? ",)" : ")";
  std::string dict = std::string("{'descr': '") + descrOf(array.dtype) +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = kMagicLen + 4 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  out.append(reinterpret_cast<const char *>(array.data.data()),
             array.data.size());
  return out;
}

bool decodeNpy(std::string_view bytes, std::optional<DType> bitPattern,
               NpyArray &array, std::string &error) {
  if (bytes.size() < kMagicLen + 4 ||
      std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    error = "not a .npy file (bad magic)";
    return false;
  }
  auto byte = [&](size_t i) { return static_cast<uint8_t>(bytes[i]); };
  unsigned major = byte(6);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = byte(8) | (byte(9) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "truncated .npy header";
      return false;
    }
    headerLen = byte(8) | (byte(9) << 8) | (size_t(byte(10)) << 16) |
                (size_t(byte(11)) << 24);
    headerStart = 12;
  } else {
    error = "unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (bytes.size() < headerStart + headerLen) {
    error = "truncated .npy header";
    return false;
  }
  std::string_view header = bytes.substr(headerStart, headerLen);
  std::string_view descr, fortran, shape;
  if (!dictValue(header, "descr", descr) ||
      !dictValue(header, "fortran_order", fortran) ||
      !dictValue(header, "shape", shape)) {
    error = "malformed .npy header: " + std::string(header);
    return false;
  }
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"'))
    descr = descr.substr(1, descr.size() - 2);
  if (fortran != "False") {
    error = "Fortran-order .npy arrays are not supported (use C order)";
    return false;
  }
  if (!parseShape(shape, array.shape)) {
    error = "malformed shape in .npy header: " + std::string(shape);
    return false;
  }
  static const DType all[] = {DType::i1,  DType::i8,  DType::i16, DType::i32,
                              DType::i64, DType::f16, DType::f32, DType::f64};
  bool found = false;
  for (DType t : all) {
    std::string_view d = descrOf(t);
    // One-byte types have no byte order; accept '<' and '=' as well.
    if (descr == d || (d[0] == '|' && descr.size() == 3 &&
                       (descr[0] == '<' || descr[0] == '=') &&
                       descr.substr(1) == d.substr(1))) {
      array.dtype = t;
      found = true;
    }
  }
  // The bit-pattern types: the file's suffix says which (numpy has no name).
  std::string_view patternDescr;
  if (bitPattern)
    patternDescr = descrOf(*bitPattern);
  // One-byte types have no byte order: '<' and '=' are accepted as well.
  bool isU1 = descr.size() == 3 && descr.substr(1) == "u1" &&
              (descr[0] == '|' || descr[0] == '<' || descr[0] == '=');
  if (descr == "<u2" || isU1) {
    std::string_view canonical = isU1 ? "|u1" : "<u2";
    if (patternDescr != canonical) {
      error =
          "dtype " + std::string(descr) + " is read only as " +
          (canonical == "<u2" ? "bf16 bit patterns (name the file *.bf16.npy)"
                              : "8-bit float bit patterns (name the file "
                                "*.f8e4m3.npy, *.f8e5m2.npy, "
                                "*.f8e4m3fnuz.npy or *.f8e5m2fnuz.npy)");
      return false;
    }
    array.dtype = *bitPattern;
    found = true;
  } else if (found && bitPattern) {
    error = "a " + npySuffix(*bitPattern) + " file must hold dtype " +
            std::string(patternDescr) + ", not " + std::string(descr);
    return false;
  }
  if (!found) {
    error = "unsupported .npy dtype '" + std::string(descr) +
            "' (supported: <f2 <f4 <f8 |i1 <i2 <i4 <i8 |b1, <u2 as bf16, |u1 "
            "as the 8-bit floats; little-endian only)";
    return false;
  }
  size_t want =
      static_cast<size_t>(array.numElements()) * dtypeSize(array.dtype);
  size_t have = bytes.size() - headerStart - headerLen;
  if (have != want) {
    error = "the .npy data holds " + std::to_string(have) +
            " bytes; the shape and dtype need " + std::to_string(want);
    return false;
  }
  const char *data = bytes.data() + headerStart + headerLen;
  array.data.assign(data, data + want);
  return true;
}

bool isBitPatternType(DType type) {
  return type == DType::bf16 || isFloat8(type);
}

std::string npySuffix(DType type) {
  return isBitPatternType(type) ? "." + std::string(dtypeName(type)) + ".npy"
                                : ".npy";
}

std::optional<DType> bitPatternTypeOfPath(std::string_view path) {
  for (DType t : {DType::bf16, DType::f8e4m3, DType::f8e5m2, DType::f8e4m3fnuz,
                  DType::f8e5m2fnuz})
    if (endsWith(path, npySuffix(t)))
      return t;
  return std::nullopt;
}

bool writeNpyFile(const std::string &path, const NpyArray &array,
                  std::string &error) {
  std::optional<DType> pathType = bitPatternTypeOfPath(path);
  if (isBitPatternType(array.dtype) ? pathType != array.dtype
                                    : pathType.has_value()) {
    error = path + ": " +
            (isBitPatternType(array.dtype)
                 ? std::string(dtypeName(array.dtype)) + " arrays go to *" +
                       npySuffix(array.dtype) + " files"
                 : "only " + std::string(dtypeName(*pathType)) +
                       " arrays go to *" + npySuffix(*pathType) + " files");
    return false;
  }
  std::string bytes = encodeNpy(array);
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    if (f)
      std::fclose(f);
    return false;
  }
  if (std::fclose(f) != 0) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool readNpyFile(const std::string &path, NpyArray &array, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (!decodeNpy(bytes, bitPatternTypeOfPath(path), array, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

} // namespace kcc::interp
