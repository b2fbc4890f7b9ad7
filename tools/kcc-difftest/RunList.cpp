//===- RunList.cpp - the case directory shared by the legs ----------------===//
#include "tools/kcc-difftest/RunList.h"
#include "interp/Npy.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <sstream>

using namespace kcc::interp;
using namespace kcc::difftest;

namespace {
constexpr const char *kMagic = "kcc-difftest-runlist 1";

std::string oneLine(std::string s) {
  for (char &c : s)
    if (c == '\n' || c == '\r')
      c = ' ';
  return s;
}

bool parseU64(const std::string &s, uint64_t &out) {
  if (s.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(s.c_str(), &end, 0);
  return errno == 0 && end && *end == 0;
}
bool parseI64(const std::string &s, int64_t &out) {
  if (s.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end && *end == 0;
}
} // namespace

std::string kcc::difftest::inputFileName(const std::string &buffer,
                                         DType type) {
  return "input." + buffer + interp::npySuffix(type);
}

std::string kcc::difftest::outputFileName(const std::string &leg,
                                          const std::string &buffer,
                                          DType type) {
  return leg + "." + buffer + interp::npySuffix(type);
}

std::string kcc::difftest::writeRunList(const RunList &list) {
  std::ostringstream os;
  os << kMagic << "\n";
  if (!list.fatbin.empty())
    os << "fatbin " << list.fatbin << "\n";
  for (const RunCase &c : list.cases) {
    os << "case " << c.id << "\n";
    os << "symbol " << c.symbol << "\n";
    for (auto [sm, threads] : c.threads)
      os << "threads " << sm << " " << threads << "\n";
    for (const auto &[target, threads] : c.amdThreads)
      os << "amd-threads " << target << " " << threads << "\n";
    os << "grid " << c.grid[0] << " " << c.grid[1] << " " << c.grid[2] << "\n";
    for (const RunBuffer &b : c.buffers)
      os << "buffer " << b.name << " " << dtypeName(b.dtype) << " " << b.file
         << "\n";
    for (const RunArg &a : c.args) {
      if (a.isPointer)
        os << "arg ptr " << a.buffer << "\n";
      else
        os << "arg " << dtypeName(a.dtype) << " 0x" << std::hex << a.bits
           << std::dec << "\n";
    }
    os.precision(17);
    for (const RunOutput &o : c.outputs)
      os << "output " << o.buffer << " " << o.rtol << " " << o.atol << "\n";
    if (c.interpPassed)
      os << "interp PASS\n";
    else
      os << "interp FAIL " << oneLine(c.interpMessage) << "\n";
    os << "end\n";
  }
  return os.str();
}

bool kcc::difftest::parseRunList(std::string_view text, RunList &list,
                                 std::string &error) {
  std::istringstream in{std::string(text)};
  std::string line;
  unsigned lineNo = 0;
  RunCase *cur = nullptr;
  auto fail = [&](const std::string &msg) {
    error = "line " + std::to_string(lineNo) + ": " + msg;
    return false;
  };
  while (std::getline(in, line)) {
    ++lineNo;
    if (lineNo == 1) {
      if (line != kMagic)
        return fail("not a kcc-difftest run list (expected '" +
                    std::string(kMagic) + "')");
      continue;
    }
    if (line.empty())
      continue;
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    std::vector<std::string> words;
    for (std::string w; ls >> w;)
      words.push_back(w);
    if (key == "fatbin" && words.size() == 1) {
      list.fatbin = words[0];
      continue;
    }
    if (key == "case" && words.size() == 1) {
      list.cases.emplace_back();
      cur = &list.cases.back();
      cur->id = words[0];
      continue;
    }
    if (!cur)
      return fail("'" + key + "' outside a case");
    if (key == "end") {
      cur = nullptr;
    } else if (key == "symbol" && words.size() == 1) {
      cur->symbol = words[0];
    } else if (key == "amd-threads" && words.size() == 2) {
      uint64_t threads;
      if (words[0].rfind("gfx", 0) != 0 || !parseU64(words[1], threads))
        return fail("bad amd-threads line");
      cur->amdThreads.emplace_back(std::string(words[0]), unsigned(threads));
    } else if (key == "threads" && words.size() == 2) {
      uint64_t sm, threads;
      if (!parseU64(words[0], sm) || !parseU64(words[1], threads))
        return fail("bad threads line");
      cur->threads.emplace_back(unsigned(sm), unsigned(threads));
    } else if (key == "grid" && words.size() == 3) {
      for (int d = 0; d < 3; ++d)
        if (!parseI64(words[d], cur->grid[d]) || cur->grid[d] < 0)
          return fail("bad grid line");
    } else if (key == "buffer" && words.size() == 3) {
      std::optional<DType> t = parseDType(words[1]);
      if (!t)
        return fail("unknown dtype '" + words[1] + "'");
      cur->buffers.push_back({words[0], *t, words[2]});
    } else if (key == "arg" && words.size() == 2) {
      RunArg a;
      if (words[0] == "ptr") {
        a.isPointer = true;
        a.buffer = words[1];
      } else {
        std::optional<DType> t = parseDType(words[0]);
        if (!t || !parseU64(words[1], a.bits))
          return fail("bad scalar argument");
        a.dtype = *t;
      }
      cur->args.push_back(a);
    } else if (key == "output" && words.size() == 3) {
      RunOutput o;
      o.buffer = words[0];
      char *e1 = nullptr, *e2 = nullptr;
      o.rtol = std::strtod(words[1].c_str(), &e1);
      o.atol = std::strtod(words[2].c_str(), &e2);
      if (*e1 || *e2)
        return fail("bad tolerance");
      cur->outputs.push_back(o);
    } else if (key == "interp" && !words.empty()) {
      cur->interpPassed = words[0] == "PASS";
      size_t pos = line.find(words[0]) + words[0].size();
      cur->interpMessage = pos < line.size() ? line.substr(pos + 1) : "";
    } else {
      return fail("unexpected '" + line + "'");
    }
  }
  if (cur)
    return fail("the last case has no 'end'");
  return true;
}
