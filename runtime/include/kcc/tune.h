//===- tune.h - the generated tuner's driver: shapes in, a database out ---===//
//
// Header-only, for <stem>.kcc.tune.cpp, which kcc generates beside the CUDA
// stubs of a file whose launch functions weigh tile candidates by size
// (docs/gemm.md, "Tuned dispatch"). That program #includes the stubs'
// source, describes each such launch function (its parameters, its
// candidates per target and a call through its typed launch function) and
// hands them to kcc::tune::main, which times every candidate of the
// device's target at each shape given on the command line, through the
// runtime (no Python, no kcc on the GPU machine), and writes a tuning
// database (JSON, version 1) that `kcc --tuning-db=FILE` compiles into the
// stubs.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_RUNTIME_TUNE_H
#define KCC_RUNTIME_TUNE_H

#include "kcc/dispatch.h"
#include "kcc/runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace kcc::tune {

/// A parameter of a launch function, in signature order (tensors are their
/// base pointer followed by their sizes and strides, as in the stubs).
struct Param {
  const char *name;
  enum Kind { Pointer, Integer, Float } kind;
  unsigned elementBytes; // pointers
  unsigned tensorRank;   // a tensor's base pointer: its rank, else 0
};

/// A launch function that weighs candidates, as the tuner sees it.
struct Launch {
  const char *name;
  const Param *params;
  unsigned numParams;
  const kcc::rt::KernelDesc *any; // one of its kernels (context, errors)
  const unsigned *sms;            // its targets (compute capability x10)
  const char *const *targets;     // ... and their names
  unsigned numTargets;
  const char *const *const *candidates; // per target
  const unsigned *numCandidates;        // per target
  /// Calls the typed launch function: pointers[i], integers[i], floats[i]
  /// are the values of the i-th parameter of that kind, in order.
  kcc::Status (*call)(void *const *pointers, const int64_t *integers,
                      const double *floats, CUstream_st *stream);
};

namespace detail {

inline int usage(const char *argv0, const Launch *launches, unsigned n) {
  std::fprintf(
      stderr,
      "usage: %s [--repeat N] [-o DB.json] LAUNCH:NAME=VALUE,... ...\n"
      "  times every candidate of LAUNCH on this GPU at each shape and writes\n"
      "  a tuning database for kcc --tuning-db. NAME=VALUE: a tensor's sizes\n"
      "  (c=4096x1024: rows padded to 16 bytes), a pointer's element count\n"
      "  (x=1000000), an integer or a float parameter (n=128, scale=0.5).\n"
      "  Launch functions:",
      argv0);
  for (unsigned i = 0; i < n; ++i) {
    std::fprintf(stderr, " %s(", launches[i].name);
    for (unsigned p = 0; p < launches[i].numParams; ++p) {
      const Param &q = launches[i].params[p];
      std::fprintf(stderr, "%s%s", p ? ", " : "", q.name);
      if (q.tensorRank)
        p += 2 * q.tensorRank - 1; // its sizes and strides
    }
    std::fprintf(stderr, ")");
  }
  std::fprintf(stderr, "\n");
  return 2;
}

/// "a=4096x1024,n=5" -> {a: [4096, 1024], n: [5]}; false on bad syntax.
inline bool parseValues(const std::string &text,
                        std::map<std::string, std::vector<double>> &out) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    std::string item = text.substr(
        start, end == std::string::npos ? std::string::npos : end - start);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return false;
    std::vector<double> values;
    std::string rest = item.substr(eq + 1);
    size_t s = 0;
    while (s <= rest.size()) {
      size_t x = rest.find('x', s);
      std::string v = rest.substr(s, x == std::string::npos ? x : x - s);
      char *stop = nullptr;
      double d = std::strtod(v.c_str(), &stop);
      if (v.empty() || *stop != '\0')
        return false;
      values.push_back(d);
      if (x == std::string::npos)
        break;
      s = x + 1;
    }
    out[item.substr(0, eq)] = values;
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return true;
}

inline std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

} // namespace detail

/// The tuner's main: parses the shapes, times each candidate (best of
/// --repeat launches averaged by kcc::rt::timeLaunches, after a warm-up),
/// prints a line per candidate and writes the database (-o, default
/// tuning.json). Exit status 0, 1 on a failed launch or write, 2 on usage.
inline int main(int argc, char **argv, const Launch *launches, unsigned n) {
  std::string out = "tuning.json";
  unsigned repeat = 20;
  std::vector<std::string> shapes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "-o" || a == "--repeat") && i + 1 < argc) {
      if (a == "-o")
        out = argv[++i];
      else
        repeat = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a.find(':') != std::string::npos && a[0] != '-') {
      shapes.push_back(a);
    } else {
      return detail::usage(argv[0], launches, n);
    }
  }
  if (shapes.empty() || repeat == 0)
    return detail::usage(argv[0], launches, n);
  std::string target, device, entries;
  for (const std::string &shape : shapes) {
    std::string name = shape.substr(0, shape.find(':'));
    const Launch *launch = nullptr;
    for (unsigned i = 0; i < n; ++i)
      if (name == launches[i].name)
        launch = &launches[i];
    std::map<std::string, std::vector<double>> values;
    if (!launch ||
        !detail::parseValues(shape.substr(name.size() + 1), values)) {
      std::fprintf(stderr, "%s: %s\n", shape.c_str(),
                   launch ? "expected NAME=VALUE[xVALUE...],..."
                          : "no launch function of that name");
      return detail::usage(argv[0], launches, n);
    }
    unsigned which = 0;
    kcc::Status st = kcc::rt::selectTarget(*launch->any, launch->sms,
                                           launch->numTargets, &which);
    std::string name_;
    if (st)
      st = kcc::rt::deviceName(*launch->any, &name_);
    if (!st) {
      std::fprintf(stderr, "%s\n", st.message.c_str());
      return 1;
    }
    if (!target.empty() && target != launch->targets[which]) {
      std::fprintf(stderr,
                   "%s runs %s code here, another shape %s: one "
                   "database is for one target\n",
                   name.c_str(), launch->targets[which], target.c_str());
      return 1;
    }
    target = launch->targets[which];
    device = name_;
    // Buffers and the integer parameters, in signature order.
    std::vector<void *> pointers;
    std::vector<int64_t> integers;
    std::vector<double> floats;
    std::string sizes;
    bool ok = true;
    for (unsigned p = 0; p < launch->numParams && ok; ++p) {
      const Param &q = launch->params[p];
      auto given = values.find(q.name);
      if (q.kind == Param::Pointer) {
        std::vector<double> dims =
            given == values.end() ? std::vector<double>{} : given->second;
        unsigned rank = q.tensorRank ? q.tensorRank : 1;
        if (dims.size() != rank) {
          std::fprintf(stderr, "%s: give %s's %s (%u value%s)\n", shape.c_str(),
                       q.name, q.tensorRank ? "sizes" : "element count", rank,
                       rank == 1 ? "" : "s");
          ok = false;
          break;
        }
        // Row-major, the rows padded to 16 bytes (the tensor contract).
        int64_t row = static_cast<int64_t>(dims.back());
        int64_t padded = (row * q.elementBytes + 15) / 16 * 16 / q.elementBytes;
        int64_t elements = padded;
        for (size_t d = 0; d + 1 < dims.size(); ++d)
          elements *= static_cast<int64_t>(dims[d]);
        void *ptr = nullptr;
        st = kcc::rt::allocate(
            *launch->any, static_cast<size_t>(elements) * q.elementBytes + 16,
            &ptr);
        if (!st) {
          std::fprintf(stderr, "%s\n", st.message.c_str());
          return 1;
        }
        pointers.push_back(ptr);
        if (q.tensorRank) {
          for (double d : dims)
            integers.push_back(static_cast<int64_t>(d));
          int64_t stride = padded;
          std::vector<int64_t> strides(q.tensorRank - 1);
          for (unsigned d = q.tensorRank - 1; d-- > 0;) {
            strides[d] = stride;
            stride *= static_cast<int64_t>(dims[d]);
          }
          integers.insert(integers.end(), strides.begin(), strides.end());
          p += 2 * q.tensorRank - 1; // its sizes and strides
        }
      } else if (q.kind == Param::Integer) {
        if (given == values.end() || given->second.size() != 1) {
          std::fprintf(stderr, "%s: give %s=VALUE\n", shape.c_str(), q.name);
          ok = false;
          break;
        }
        integers.push_back(static_cast<int64_t>(given->second[0]));
      } else {
        floats.push_back(given == values.end() || given->second.empty()
                             ? 1.0
                             : given->second[0]);
      }
    }
    if (!ok)
      return 2;
    // The integer parameters by name: the database's key.
    for (unsigned p = 0, i = 0; p < launch->numParams; ++p)
      if (launch->params[p].kind == Param::Integer)
        sizes += std::string(sizes.empty() ? "" : ", ") +
                 detail::jsonString(launch->params[p].name) + ": " +
                 std::to_string(integers[i++]);
    std::string times, best;
    double bestUs = 0;
    const char *const *cands = launch->candidates[which];
    for (unsigned c = 0; c < launch->numCandidates[which]; ++c) {
      kcc::rt::forceVariant(cands[c]);
      double us = 0;
      st = kcc::rt::timeLaunches(
          *launch->any, nullptr, repeat,
          [&] {
            return launch->call(pointers.data(), integers.data(), floats.data(),
                                nullptr);
          },
          &us);
      kcc::rt::forceVariant(nullptr);
      if (!st) {
        std::fprintf(stderr, "%s: %s: %s\n", shape.c_str(), cands[c],
                     st.message.c_str());
        return 1;
      }
      std::printf("%s %s: %.2f us\n", shape.c_str(), cands[c], us);
      times += std::string(times.empty() ? "" : ", ") +
               detail::jsonString(cands[c]) + ": " + std::to_string(us);
      if (best.empty() || us < bestUs) {
        best = cands[c];
        bestUs = us;
      }
    }
    for (void *ptr : pointers)
      (void)kcc::rt::release(*launch->any, ptr);
    entries += std::string(entries.empty() ? "" : ",\n") +
               "    {\"launch\": " + detail::jsonString(name) +
               ", \"sizes\": {" + sizes +
               "}, \"best\": " + detail::jsonString(best) +
               ", \"times_us\": {" + times + "}}";
  }
  std::string db = "{\n  \"kcc_tuning_db\": 1,\n  \"target\": " +
                   detail::jsonString(target) +
                   ",\n  \"device\": " + detail::jsonString(device) +
                   ",\n  \"shapes\": [\n" + entries + "\n  ]\n}\n";
  std::FILE *f = std::fopen(out.c_str(), "w");
  if (!f || std::fwrite(db.data(), 1, db.size(), f) != db.size() ||
      std::fclose(f) != 0) {
    std::fprintf(stderr, "cannot write %s\n", out.c_str());
    return 1;
  }
  std::printf("wrote %s (%s, %s, %zu shape%s)\n", out.c_str(), target.c_str(),
              device.c_str(), shapes.size(), shapes.size() == 1 ? "" : "s");
  return 0;
}

} // namespace kcc::tune

#endif // KCC_RUNTIME_TUNE_H
