//===- StubEmitter.cpp - host launch stubs for compiled kernels -----------===//
//
// Layout of the generated files (module stem `vector_add`):
//
//   vector_add.kcc.h    include guard, <kcc/runtime.h>; C++ part (namespace
//                       vector_add: one typed function per specialization, per
//                       kernel a spec struct and a dispatcher); C part
//                       (extern "C" kcc_<symbol> functions, valid C).
//   vector_add.kcc.cpp  namespace vector_add::kcc_impl: the fatbin bytes, its
//                       FatbinDesc, per specialization the table of threads
//                       and dynamic shared memory per target, the KernelDesc
//                       and a grid function; then the definitions.
//
// The HIP flavour (vector_add.hip.kcc.h/.cpp) is the same text with another
// runtime header and launch function, `ihipStream_t *` streams, the offload
// bundle embedded instead of the fatbin and threads tables of the AMD builds
// (Vendor below): the same names, signatures, checks and C entry points.
//
// Every name the generated code introduces inside function bodies is either
// reserved for users (`stream`, `spec`, `grid`, `args`, `kcc_*`) or qualified
// (`::vector_add::f`, `kcc_impl::x`, `kcc::rt::f`), so user parameter names
// can be used unchanged as C++ names.
//
//===----------------------------------------------------------------------===//

#include "backends/host/StubEmitter.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kcc::host {
namespace {

#ifdef KCC_VERSION
constexpr const char *kGenerator = "kcc " KCC_VERSION;
#else
constexpr const char *kGenerator = "kcc";
#endif

constexpr size_t kLineWidth = 80;

/// What differs between the CUDA and the HIP flavour of the stubs.
struct Vendor {
  const char *fileSuffix;    // <stem><fileSuffix>.h / .cpp
  const char *guardSuffix;   // KCC_<NS><guardSuffix>
  const char *runtimeHeader; // #include <...>
  const char *library;       // what to link, for the header comment
  const char *stream;        // the stream type (a struct declared by the
                             // runtime header)
  const char *launch;        // the runtime's launch function
  const char *imageKind;     // "fatbin", in comments
  bool amd;                  // uses the AMD (gfx*) builds, else the others
};

constexpr Vendor kCuda = {".kcc",        "_KCC_H",      "kcc/runtime.h",
                          "kcc_runtime", "CUstream_st", "kcc::rt::launch",
                          "fatbin",      false};
constexpr Vendor kHip = {".hip.kcc",          "_HIP_KCC_H",
                         "kcc/runtime_hip.h", "kcc_runtime_hip",
                         "ihipStream_t",      "kcc::rt::hip::launch",
                         "offload bundle",    true};

bool isAmdTarget(const std::string &target) {
  return target.rfind("gfx", 0) == 0;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

/// Keywords of C++20 and C23 (and alternative operator spellings).
const std::set<std::string> &keywords() {
  static const std::set<std::string> set = {
      // C++
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "co_await", "co_return", "co_yield", "compl",
      "concept", "const", "const_cast", "consteval", "constexpr", "constinit",
      "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch", "template",
      "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "xor", "xor_eq",
      // C only (the header's C part)
      "restrict", "typeof", "typeof_unqual"};
  return set;
}

/// Names the generated code uses itself, or that the headers it includes
/// define (types, macros; `linux`/`unix` are macros in GNU modes).
const std::set<std::string> &reservedNames() {
  static const std::set<std::string> set = {
      "stream",    "spec",        "grid",         "args",     "kcc",
      "std",       "int8_t",      "int16_t",      "int32_t",  "int64_t",
      "uint8_t",   "uint16_t",    "uint32_t",     "uint64_t", "size_t",
      "ptrdiff_t", "CUstream_st", "ihipStream_t", "NULL",     "EOF",
      "errno",     "stdin",       "stdout",       "stderr",   "offsetof",
      "assert",    "linux",       "unix",         "i386"};
  return set;
}

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

/// Why `name` cannot be used as a name in the stubs, or "" if it can.
std::string nameProblem(const std::string &name) {
  if (name.empty())
    return "is empty";
  if (!isIdentStart(name[0]))
    return "is not a C++ identifier";
  for (char c : name)
    if (!isIdentChar(c))
      return "is not a C++ identifier";
  if (keywords().count(name))
    return "is a C++ keyword";
  if (name.rfind("kcc_", 0) == 0)
    return "starts with 'kcc_', which is reserved for the generated launch "
           "stubs";
  if (reservedNames().count(name))
    return "is reserved in the generated launch stubs";
  if (name.find("__") != std::string::npos ||
      (name[0] == '_' && name.size() > 1 && name[1] >= 'A' && name[1] <= 'Z'))
    return "is reserved in C and C++ (double underscore or underscore and "
           "capital letter)";
  auto startsWith = [&](const char *prefix) {
    return name.rfind(prefix, 0) == 0;
  };
  if (startsWith("INT") || startsWith("UINT") || startsWith("SIZE") ||
      startsWith("PTRDIFF")) {
    // <stdint.h> limit macros: INT32_MAX, UINT8_C, SIZE_MAX, ...
    std::string tail = name.substr(name.rfind('_') + 1);
    if (tail == "MAX" || tail == "MIN" || tail == "C")
      return "is a macro of <stdint.h>";
  }
  return "";
}

std::string stripDir(const std::string &path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

//===----------------------------------------------------------------------===//
// Text helpers
//===----------------------------------------------------------------------===//

/// `text` as the contents of a C string literal.
std::string cString(const std::string &text) {
  std::string out = "\"";
  char prev = 0;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '?' && prev == '?') {
      out += "\\?"; // no trigraphs
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", c);
      out += buf;
    } else {
      out += ch;
    }
    prev = ch;
  }
  return out + "\"";
}

/// `text` made safe for a `//` comment: one line, no line continuation.
std::string commentText(const std::string &text) {
  std::string out;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f)
      out += ' ';
    else if (c == '\\')
      out += '/';
    else
      out += ch;
  }
  return out;
}

std::string int64Literal(int64_t v) {
  if (v == INT64_MIN)
    return "(-9223372036854775807 - 1)";
  return std::to_string(v);
}

/// `head` + params joined by ", " + `tail`, wrapped clang-format style: the
/// continuation lines align after `head` (or are indented by 4 when that is
/// too far right).
std::string wrapCall(const std::string &indent, const std::string &head,
                     const std::vector<std::string> &params,
                     const std::string &tail) {
  std::string oneLine = indent + head;
  for (size_t i = 0; i < params.size(); ++i)
    oneLine += (i ? ", " : "") + params[i];
  oneLine += tail;
  if (oneLine.size() <= kLineWidth || params.empty())
    return oneLine + "\n";
  std::string cont(indent.size() + head.size(), ' ');
  std::string out = indent + head;
  std::string line = out;
  bool first = true;
  if (cont.size() > kLineWidth / 2) {
    // The head is long: all parameters go on indented continuation lines.
    cont = indent + "    ";
    out += "\n" + cont;
    line = cont;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    std::string piece = params[i] + (i + 1 < params.size() ? "," : tail);
    if (!first && line.size() + 1 + piece.size() > kLineWidth) {
      out += "\n" + cont + piece;
      line = cont + piece;
    } else {
      std::string sep = first ? "" : " ";
      out += sep + piece;
      line += sep + piece;
    }
    first = false;
  }
  return out + "\n";
}

/// `text` as `prefix`-comment lines of at most kLineWidth columns (words are
/// never split; continuation lines are indented by `hang` spaces).
std::string wrapComment(const std::string &prefix, const std::string &text,
                        size_t hang = 0) {
  std::string out, line = prefix;
  size_t start = 0;
  bool empty = true;
  std::string safe = commentText(text);
  while (start <= safe.size()) {
    size_t end = safe.find(' ', start);
    if (end == std::string::npos)
      end = safe.size();
    std::string word = safe.substr(start, end - start);
    start = end + 1;
    if (word.empty())
      continue;
    if (!empty && line.size() + 1 + word.size() > kLineWidth) {
      out += line + "\n";
      line = prefix + " " + std::string(hang, ' ') + word;
    } else {
      line += " " + word;
    }
    empty = false;
  }
  return out + line + "\n";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

bool validKind(ScalarKind k) {
  return static_cast<unsigned>(k) <= static_cast<unsigned>(ScalarKind::F64);
}

bool isIntegerKind(ScalarKind k) {
  return k == ScalarKind::I8 || k == ScalarKind::I16 || k == ScalarKind::I32 ||
         k == ScalarKind::I64;
}

const char *cxxType(ScalarKind k) {
  switch (k) {
  case ScalarKind::I1:
    return "bool";
  case ScalarKind::I8:
    return "int8_t";
  case ScalarKind::I16:
    return "int16_t";
  case ScalarKind::I32:
    return "int32_t";
  case ScalarKind::I64:
    return "int64_t";
  case ScalarKind::F16:
    return "kcc::f16";
  case ScalarKind::BF16:
    return "kcc::bf16";
  case ScalarKind::F32:
    return "float";
  case ScalarKind::F64:
    return "double";
  }
  return "void";
}

const char *cType(ScalarKind k) {
  if (k == ScalarKind::F16 || k == ScalarKind::BF16)
    return "uint16_t";
  return cxxType(k);
}

std::string dtypeEnum(ScalarKind k) {
  return std::string("kcc::DType::") + scalarKindName(k);
}

std::string cxxParam(const ParamInfo &p) {
  return std::string(cxxType(p.elem)) + (p.isPointer ? " *" : " ") + p.name;
}

std::string cParam(const ParamInfo &p) {
  return std::string(cType(p.elem)) + (p.isPointer ? " *" : " ") + p.name;
}

bool isBoolConstant(const ConstantValue &c) {
  return !c.isDType && (c.text == "true" || c.text == "false");
}

std::string constantValueText(const ConstantValue &c) {
  if (c.isDType)
    return scalarKindName(c.dtype);
  if (isBoolConstant(c))
    return c.intValue ? "true" : "false";
  return std::to_string(c.intValue);
}

/// "T = f32, BLOCK = 1024"
std::string constantsText(const Specialization &s) {
  std::string out;
  for (size_t i = 0; i < s.constants.size(); ++i)
    out += (i ? ", " : "") + s.constants[i].name + " = " +
           constantValueText(s.constants[i]);
  return out;
}

unsigned effectiveAlign(const ParamInfo &p) {
  unsigned natural = scalarKindBytes(p.elem);
  return p.align > natural ? p.align : natural;
}

//===----------------------------------------------------------------------===//
// Grid expressions
//===----------------------------------------------------------------------===//

/// Checks that `expr` is a C expression over integer literals and the integer
/// parameters of `s`; adds the parameters it uses to `used`.
bool scanGrid(const std::string &expr, const Specialization &s,
              std::set<std::string> &used, std::string &error) {
  size_t i = 0;
  while (i < expr.size()) {
    char c = expr[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (isIdentStart(c)) {
      size_t j = i;
      while (j < expr.size() && isIdentChar(expr[j]))
        ++j;
      std::string name = expr.substr(i, j - i);
      const ParamInfo *param = nullptr;
      for (const ParamInfo &p : s.params)
        if (p.name == name)
          param = &p;
      if (!param || param->isPointer || !isIntegerKind(param->elem)) {
        error = "grid expression '" + commentText(expr) + "' of " + s.symbol +
                " uses '" + name + "', which is not an integer parameter";
        return false;
      }
      used.insert(name);
      i = j;
    } else if (c >= '0' && c <= '9') {
      size_t j = i;
      while (j < expr.size() && isIdentChar(expr[j]))
        ++j; // 123, 0x1F, 10LL
      i = j;
    } else if (std::string("+-*/%()?:<>=!&|^~").find(c) != std::string::npos) {
      ++i;
    } else {
      error = "grid expression '" + commentText(expr) + "' of " + s.symbol +
              " is not a C integer expression (unexpected '" +
              commentText(std::string(1, c)) + "')";
      return false;
    }
  }
  return true;
}

std::string gridExpr(const std::string &e) { return e.empty() ? "1" : e; }

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

struct SpecPlan {
  const Specialization *spec;
  std::vector<std::string> gridParams; // integer params the grid uses, in order
  // Per coverage guard, the integer params it uses, in order.
  std::vector<std::vector<std::string>> guardParams;
  std::vector<const TargetBuild *> builds; // the vendor's, in target order
  // kcc --persistent: the specialization's persistent build (spec null if
  // none) and its builds for the vendor.
  struct {
    const Specialization *spec = nullptr;
    std::vector<const TargetBuild *> builds;
  } persistent;
};

struct Dispatcher {
  bool possible = false;
  std::string whyNot;              // comment when !possible and has constants
  std::vector<bool> pointerIsVoid; // per param
};

struct KernelPlan {
  const KernelInfo *kernel;
  std::vector<SpecPlan> specs;
  Dispatcher dispatcher;
};

Dispatcher planDispatcher(const KernelInfo &k) {
  Dispatcher d;
  const Specialization &first = k.specializations.front();
  if (first.constants.empty())
    return d; // nothing to select by: call the typed function
  for (const Specialization &s : k.specializations) {
    if (s.constants.size() != first.constants.size()) {
      d.whyNot = "its specializations have different constant parameters";
      return d;
    }
    for (size_t i = 0; i < s.constants.size(); ++i) {
      const ConstantValue &a = s.constants[i], &b = first.constants[i];
      if (a.name != b.name || a.isDType != b.isDType ||
          isBoolConstant(a) != isBoolConstant(b)) {
        d.whyNot = "its specializations have different constant parameters";
        return d;
      }
    }
    if (s.params.size() != first.params.size()) {
      d.whyNot = "its specializations have different parameters";
      return d;
    }
    for (size_t i = 0; i < s.params.size(); ++i) {
      const ParamInfo &a = s.params[i], &b = first.params[i];
      if (a.name != b.name || a.isPointer != b.isPointer ||
          a.isTensorMap != b.isTensorMap) {
        d.whyNot = "its specializations have different parameters";
        return d;
      }
      // Tensor maps are not arguments of the dispatcher: each typed function
      // encodes its own.
      if (!a.isPointer && !a.isTensorMap && a.elem != b.elem) {
        d.whyNot = std::string("parameter '") + a.name + "' has type " +
                   scalarKindName(b.elem) + " in " + first.symbol + " but " +
                   scalarKindName(a.elem) + " in " + s.symbol +
                   " (scalars of a dtype constant's type cannot be passed "
                   "untyped); call the typed functions";
        return d;
      }
    }
  }
  for (size_t i = 0; i < first.params.size(); ++i) {
    bool isVoid = false;
    if (first.params[i].isPointer) {
      // void * if the pointee varies, or may be a dtype constant (it equals
      // one in every specialization): keeps the signature stable when
      // specializations are added.
      for (const Specialization &s : k.specializations)
        if (s.params[i].elem != first.params[i].elem)
          isVoid = true;
      for (size_t c = 0; c < first.constants.size() && !isVoid; ++c) {
        if (!first.constants[c].isDType)
          continue;
        bool all = true;
        for (const Specialization &s : k.specializations)
          all = all && s.constants[c].dtype == s.params[i].elem;
        isVoid = all;
      }
    }
    d.pointerIsVoid.push_back(isVoid);
  }
  d.possible = true;
  return d;
}

/// Checks that tensor map `p` of `s` describes a tensor parameter of `s` the
/// stub can encode it from, and that `vendor` has tensor maps at all.
bool checkTensorMap(const Specialization &s, const ParamInfo &p,
                    const Vendor &vendor, std::string &error) {
  std::string what = "internal error: tensor map parameter '" +
                     commentText(p.name) + "' of " + s.symbol;
  // Maps follow every user parameter: HIP stubs leave them out (AMD images
  // are compiled without them) and CUDA images without TMA ignore them.
  auto own = std::find_if(s.params.begin(), s.params.end(),
                          [&](const ParamInfo &q) { return &q == &p; });
  if (std::any_of(own, s.params.end(),
                  [](const ParamInfo &q) { return !q.isTensorMap; })) {
    error = what + " is followed by a user parameter; tensor maps must come "
                   "after every user parameter";
    return false;
  }
  if (p.tensorBase >= s.params.size()) {
    error = what + " maps parameter #" + std::to_string(p.tensorBase) +
            ", which does not exist";
    return false;
  }
  const ParamInfo &base = s.params[p.tensorBase];
  unsigned rank = base.tensorRank;
  if (!base.isPointer || base.isTensorMap || rank == 0 ||
      p.tensorBase + 2 * rank > s.params.size()) {
    error = what + " maps '" + commentText(base.name) +
            "', which is not the base pointer of a tensor parameter";
    return false;
  }
  for (unsigned i = 1; i < 2 * rank; ++i) {
    const ParamInfo &q = s.params[p.tensorBase + i];
    if (q.isPointer || q.isTensorMap || !isIntegerKind(q.elem)) {
      error = what + ": size or stride '" + commentText(q.name) +
              "' of tensor '" + commentText(base.name) +
              "' is not an integer parameter";
      return false;
    }
  }
  if (p.elem != base.elem) {
    error = what + " has element type " + scalarKindName(p.elem) +
            " but tensor '" + commentText(base.name) + "' has " +
            scalarKindName(base.elem);
    return false;
  }
  if (p.box.size() != rank) {
    error = what + " has a box of rank " + std::to_string(p.box.size()) +
            " but tensor '" + commentText(base.name) + "' has rank " +
            std::to_string(rank);
    return false;
  }
  for (int64_t b : p.box)
    if (b < 1 || b > 256) {
      error = what + " has box side " + std::to_string(b) +
              ", outside TMA's 1..256";
      return false;
    }
  if (p.swizzle != 0 && p.swizzle != 32 && p.swizzle != 64 &&
      p.swizzle != 128) {
    error = what + " has swizzle " + std::to_string(p.swizzle) +
            ", not 0, 32, 64 or 128 bytes";
    return false;
  }
  return true;
}

bool plan(const ModuleInfo &m, const Vendor &vendor,
          std::vector<KernelPlan> &plans, std::string &error,
          std::string &culpritKernel, std::string &culpritName) {
  // Every name introduced into the module's namespace, and who made it.
  std::map<std::string, std::string> symbols;
  auto claim = [&](const std::string &name, const std::string &what) {
    auto [it, inserted] = symbols.emplace(name, what);
    if (!inserted) {
      error = "duplicate symbol '" + name + "' (" + it->second + " and " +
              what + ")";
      return false;
    }
    return true;
  };
  auto checkName = [&](const std::string &name, const std::string &what,
                       const std::string &kernel) {
    std::string problem = nameProblem(name);
    if (problem.empty())
      return true;
    culpritKernel = kernel.empty() ? name : kernel;
    culpritName = name;
    error = what + " '" + commentText(name) + "'" +
            (kernel.empty() ? "" : " of kernel '" + commentText(kernel) + "'") +
            " " + problem +
            "; rename it (the launch stubs use it as a C++ name)";
    return false;
  };

  // The builds of `s` for this vendor's targets, in target order.
  auto vendorBuilds = [&](const Specialization &s) {
    std::vector<const TargetBuild *> builds;
    for (const TargetBuild &b : s.builds)
      if (isAmdTarget(b.target) == vendor.amd)
        builds.push_back(&b);
    return builds;
  };
  for (const KernelInfo &k : m.kernels) {
    if (!checkName(k.name, "kernel", ""))
      return false;
    if (k.specializations.empty()) {
      error = "kernel '" + k.name + "' has no specializations";
      return false;
    }
    KernelPlan kp;
    kp.kernel = &k;
    for (const Specialization &s : k.specializations) {
      if (!checkName(s.symbol, "kernel function", k.name))
        return false;
      if (s.symbol == "last_error_message" || s.symbol == "status_code") {
        error = "kernel function '" + s.symbol + "' would be named kcc_" +
                s.symbol + " in C, which the runtime defines; rename it";
        return false;
      }
      if (!claim(s.symbol, "kernel function of " + k.name))
        return false;
      std::vector<const TargetBuild *> builds = vendorBuilds(s);
      if (builds.empty()) {
        error = "kernel function '" + s.symbol + "' has no " +
                (s.builds.empty() ? ""
                 : vendor.amd     ? "AMD (gfx) "
                                  : "NVIDIA ") +
                "target builds";
        return false;
      }
      std::set<std::string> names;
      for (const ConstantValue &c : s.constants) {
        if (!checkName(c.name, "constant parameter", k.name))
          return false;
        if (c.isDType && !validKind(c.dtype)) {
          error = "constant '" + c.name + "' of " + s.symbol +
                  " has an invalid dtype";
          return false;
        }
        if (!names.insert(c.name).second) {
          error = "kernel '" + k.name + "' has two constants named '" + c.name +
                  "'";
          return false;
        }
      }
      names.clear();
      for (const ParamInfo &p : s.params) {
        if (p.isTensorMap) {
          if (!checkTensorMap(s, p, vendor, error)) {
            culpritKernel = k.name;
            culpritName = p.name;
            return false;
          }
          if (!names.insert(p.name).second) {
            error = "kernel '" + k.name + "' has two parameters named '" +
                    p.name + "'";
            return false;
          }
          continue; // not a C++ name: the stubs encode it, users never see it
        }
        if (!checkName(p.name, "parameter", k.name))
          return false;
        if (!validKind(p.elem)) {
          error = "parameter '" + p.name + "' of " + s.symbol +
                  " has an invalid type";
          return false;
        }
        if (!names.insert(p.name).second) {
          error = "kernel '" + k.name + "' has two parameters named '" +
                  p.name + "'";
          return false;
        }
      }
      SpecPlan sp;
      sp.spec = &s;
      sp.builds = std::move(builds);
      if (const Specialization *p = k.persistentBuildOf(s)) {
        sp.persistent.spec = p;
        sp.persistent.builds = vendorBuilds(*p);
        if (sp.persistent.builds.size() != sp.builds.size()) {
          error = "the persistent build of '" + s.symbol +
                  "' was not compiled for the same targets";
          return false;
        }
      }
      std::set<std::string> used;
      for (const std::string &e : s.grid)
        if (!scanGrid(e, s, used, error))
          return false;
      for (const ParamInfo &p : s.params)
        if (used.count(p.name))
          sp.gridParams.push_back(p.name);
      for (const CoverageGuard &g : s.coverage) {
        std::set<std::string> guardUses;
        if (!scanGrid(g.expr, s, guardUses, error))
          return false;
        sp.guardParams.emplace_back();
        for (const ParamInfo &p : s.params)
          if (guardUses.count(p.name))
            sp.guardParams.back().push_back(p.name);
      }
      kp.specs.push_back(std::move(sp));
    }
    kp.dispatcher = planDispatcher(k);
    plans.push_back(std::move(kp));
  }
  // Dispatchers overload their typed function when a kernel has a single
  // specialization (same name); otherwise they and the spec structs must be
  // new names.
  for (const KernelPlan &kp : plans) {
    if (!kp.dispatcher.possible)
      continue;
    const std::string &name = kp.kernel->name;
    bool overloadsOwn = kp.kernel->specializations.size() == 1 &&
                        kp.kernel->specializations[0].symbol == name;
    if (!overloadsOwn && !claim(name, "dispatcher of " + name))
      return false;
    if (!claim(name + "_spec", "spec struct of " + name))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

std::string docComment(const KernelInfo &k, const SpecPlan &sp, bool amd) {
  const Specialization &s = *sp.spec;
  std::string out = wrapComment(
      "///", "Kernel " + k.name +
                 (s.constants.empty() ? "" : " with " + constantsText(s)) +
                 ".");
  std::string facts;
  for (const ParamInfo &p : s.params) {
    if (p.isPointer && p.align)
      facts += (facts.empty() ? "" : ", ") + p.name + ": align(" +
               std::to_string(p.align) + ")";
    else if (!p.isPointer && p.divisibility)
      facts += (facts.empty() ? "" : ", ") + p.name + ": multiple_of(" +
               std::to_string(p.divisibility) + ")";
  }
  out += wrapComment(
      "///", "Facts: " + (facts.empty() ? std::string("none") : facts) + ".",
      2);
  out +=
      wrapComment("///",
                  "Grid: (" + gridExpr(s.grid[0]) + ", " + gridExpr(s.grid[1]) +
                      ", " + gridExpr(s.grid[2]) + ").",
                  2);
  if (const Specialization *p = sp.persistent.spec)
    out += wrapComment(
        "///",
        "Persistent (kcc --persistent=" + std::to_string(p->persistent) +
            "): when the grid has more than " + std::to_string(p->persistent) +
            " x multiprocessors tiles, the launch runs " + p->symbol +
            " instead: one row of at most " + std::to_string(p->persistent) +
            " CTA(s) per multiprocessor, each looping over the tiles of "
            "every batch.",
        2);
  std::string builds;
  for (const TargetBuild *b : sp.builds)
    builds += (builds.empty() ? "" : ", ") + std::to_string(b->threads) + " (" +
              b->target + ")";
  out += wrapComment("///", "Threads per block: " + builds + ".", 2);
  std::string shared;
  bool anyShared = false;
  for (const TargetBuild *b : sp.builds) {
    shared += (shared.empty() ? "" : ", ") +
              std::to_string(b->dynamicSharedBytes) + " (" + b->target + ")";
    anyShared |= b->dynamicSharedBytes > 0;
  }
  if (anyShared && !amd)
    out += wrapComment("///",
                       "Dynamic shared memory (bytes): " + shared + ".", 2);
  std::string maps;
  for (const ParamInfo &p : s.params) {
    if (!p.isTensorMap)
      continue;
    std::string box;
    for (int64_t b : p.box)
      box += (box.empty() ? "" : ", ") + std::to_string(b);
    maps += (maps.empty() ? "" : ", ") + s.params[p.tensorBase].name +
            " (box [" + box + "], swizzle " + std::to_string(p.swizzle) + ")";
  }
  if (!maps.empty() && !amd)
    out += wrapComment("///",
                       "TMA tensor maps, encoded at launch on sm_90 and "
                       "newer: " +
                           maps + ".",
                       2);
  return out;
}

std::vector<std::string> typedParams(const Specialization &s) {
  std::vector<std::string> out;
  for (const ParamInfo &p : s.params)
    if (!p.isTensorMap)
      out.push_back(cxxParam(p));
  return out;
}

std::vector<std::string> dispatcherParams(const KernelPlan &kp) {
  const Specialization &first = kp.kernel->specializations.front();
  std::vector<std::string> out = {"const " + kp.kernel->name + "_spec &spec"};
  for (size_t i = 0; i < first.params.size(); ++i) {
    if (first.params[i].isTensorMap)
      continue;
    out.push_back(kp.dispatcher.pointerIsVoid[i]
                      ? "void *" + first.params[i].name
                      : cxxParam(first.params[i]));
  }
  return out;
}

std::string emitHeader(const std::vector<KernelPlan> &plans,
                       const std::string &ns, const std::string &source,
                       const Vendor &vendor, const std::string &contents) {
  std::string guard = "KCC_";
  for (char c : ns)
    guard += (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c;
  guard += vendor.guardSuffix;
  std::string stream = vendor.stream;

  std::string h;
  h += "// Generated by " + std::string(kGenerator) + " from " +
       commentText(source) + "; do not edit.\n";
  h += "//\n";
  h += wrapComment("//", "Launch stubs for the kernels of " + source + " (" +
                             vendor.imageKind + ": " + contents + ").");
  h += wrapComment("//", "C++: namespace " + ns +
                             ", functions returning kcc::Status. C: "
                             "kcc_<function>, returning a kcc_status_code "
                             "(message: kcc_last_error_message()). Link with " +
                             vendor.library + ".");
  if (vendor.amd)
    h += wrapComment("//", "HIP: streams are ihipStream_t *, i.e. "
                           "hipStream_t. Use these stubs or the CUDA ones of "
                           "the same module in a program, not both (same "
                           "names).");
  h += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  h += std::string("#include <") + vendor.runtimeHeader + ">\n\n";
  h += "#ifndef __cplusplus\n#include <stdbool.h>\n#endif\n\n";

  h += "#ifdef __cplusplus\n";
  h += "namespace " + ns + " {\n";
  for (const KernelPlan &kp : plans) {
    const KernelInfo &k = *kp.kernel;
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      std::vector<std::string> params = typedParams(s);
      params.push_back(stream + " *stream = nullptr");
      h += "\n" + docComment(k, sp, vendor.amd);
      h += wrapCall("", "kcc::Status " + s.symbol + "(", params, ");");
    }
    const Specialization &first = k.specializations.front();
    if (first.constants.empty())
      continue;
    if (!kp.dispatcher.possible) {
      h +=
          "\n" + wrapComment("//", "No " + k.name + "(spec, ...) dispatcher: " +
                                       kp.dispatcher.whyNot + ".");
      continue;
    }
    h += "\n/// Constant parameters of " + k.name +
         ", to select a "
         "specialization at run time.\n";
    h += "struct " + k.name + "_spec {\n";
    for (const ConstantValue &c : first.constants)
      h += std::string("  ") +
           (c.isDType           ? "kcc::DType"
            : isBoolConstant(c) ? "bool"
                                : "int64_t") +
           " " + c.name + ";\n";
    h += "};\n\n";
    h += "/// Launches the specialization of " + k.name +
         " whose constants equal `spec`\n";
    h += "/// (KCC_ERROR_INVALID_ARGUMENT if none). Compiled:";
    for (const Specialization &s : k.specializations)
      h += "\n///   " + s.symbol + ": " + constantsText(s);
    h += "\n";
    std::vector<std::string> params = dispatcherParams(kp);
    params.push_back(stream + " *stream = nullptr");
    h += wrapCall("", "kcc::Status " + k.name + "(", params, ");");
  }
  h += "\n} // namespace " + ns + "\n";
  h += "#endif // __cplusplus\n\n";

  h += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h +=
      "/// C entry points: the functions above with f16/bf16 as uint16_t bit\n";
  h += "/// patterns; they return the status code and keep the message for\n";
  h += "/// kcc_last_error_message().\n";
  for (const KernelPlan &kp : plans)
    for (const SpecPlan &sp : kp.specs) {
      std::vector<std::string> params;
      for (const ParamInfo &p : sp.spec->params)
        if (!p.isTensorMap)
          params.push_back(cParam(p));
      params.push_back("struct " + stream + " *stream");
      h += wrapCall("", "kcc_status_code kcc_" + sp.spec->symbol + "(", params,
                    ");");
    }
  h += "\n#ifdef __cplusplus\n} // extern \"C\"\n#endif\n\n";
  h += "#endif // " + guard + "\n";
  return h;
}

/// The fatbin as concatenated string literals: compilers read those an order
/// of magnitude faster than `{0x.., ...}` lists (8 MiB: ~1 s instead of ~20 s).
/// Printable characters stay as they are, all others become 3-digit octal
/// escapes (never greedy, unlike \x). The terminating NUL is not counted.
void emitFatbin(std::string &out, const std::string &fatbin) {
  out.reserve(out.size() + fatbin.size() * 3 + 256);
  out += "alignas(16) static const unsigned char kFatbin[] =";
  if (fatbin.empty()) {
    out += " \"\";\n";
    return;
  }
  out += "\n    \"";
  size_t column = 5; // after `    "`
  for (char ch : fatbin) {
    unsigned char c = static_cast<unsigned char>(ch);
    bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?';
    size_t width = plain ? 1 : 4;
    if (column + width + 1 > kLineWidth) { // +1: the closing quote
      out += "\"\n    \"";
      column = 5;
    }
    if (plain) {
      out += ch;
    } else {
      out += '\\';
      out += char('0' + (c >> 6));
      out += char('0' + ((c >> 3) & 7));
      out += char('0' + (c & 7));
    }
    column += width;
  }
  out += "\";\n";
}

std::string emitSource(const ModuleInfo &m,
                       const std::vector<KernelPlan> &plans,
                       const std::string &fatbin, const std::string &ns,
                       const std::string &source, const Vendor &vendor,
                       const std::string &contents) {
  std::string stream = vendor.stream;
  std::string c;
  c += "// Generated by " + std::string(kGenerator) + " from " +
       commentText(source) + "; do not edit.\n";
  c += "#include \"" + m.stem + vendor.fileSuffix + ".h\"\n\n";
  if (plans.empty())
    return c + "// " + commentText(source) + " has no kernels.\n";

  c += "namespace " + ns + " {\n";
  c += "namespace kcc_impl {\n\n";
  c += "// " + commentText(contents) + "\n";
  emitFatbin(c, fatbin);
  c += "\n";
  c += wrapCall(
      "", "static const kcc::rt::FatbinDesc kFatbinDesc = {",
      {cString(source), "kFatbin", "sizeof(kFatbin) - 1", cString(contents)},
      "};");
  for (const KernelPlan &kp : plans)
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      // One entry of the fatbin: its launch shape per target and its
      // descriptor, `fields` after the first four.
      auto emitDesc = [&](const Specialization &entry,
                          const std::vector<const TargetBuild *> &builds,
                          std::vector<std::string> fields) {
        c += "\n// " + entry.symbol + "\n";
        std::vector<std::string> threads;
        // AMD: {0, threads, target}; NVIDIA: {sm, threads} or, with dynamic
        // shared memory, {sm, threads, nullptr, bytes}; a persistent build
        // the launch does not use on the target adds `true`.
        for (const TargetBuild *b : builds) {
          std::string t =
              "{" + std::to_string(b->sm) + ", " + std::to_string(b->threads);
          if (vendor.amd)
            t += ", " + cString(b->target);
          else if (b->dynamicSharedBytes || b->persistentSlower)
            t += ", nullptr, " + std::to_string(b->dynamicSharedBytes);
          if (b->persistentSlower)
            t += ", true";
          threads.push_back(t + "}");
        }
        c += wrapCall("",
                      "static const kcc::rt::ThreadsForArch threads_" +
                          entry.symbol + "[] = {",
                      threads, "};");
        std::vector<std::string> desc = {"&kFatbinDesc", cString(entry.symbol),
                                         "threads_" + entry.symbol,
                                         std::to_string(builds.size())};
        desc.insert(desc.end(), fields.begin(), fields.end());
        c += wrapCall("",
                      "static const kcc::rt::KernelDesc kernel_" +
                          entry.symbol + " = {",
                      desc, "};");
      };
      // kcc --persistent: the launch runs the persistent build instead when
      // the grid has more tiles than it launches CTAs.
      std::vector<std::string> fields;
      if (sp.persistent.spec) {
        const Specialization &p = *sp.persistent.spec;
        emitDesc(p, sp.persistent.builds, {std::to_string(p.persistent)});
        fields = {"0", "&kernel_" + p.symbol};
      }
      emitDesc(s, sp.builds, fields);
      std::vector<std::string> gparams;
      for (const std::string &p : sp.gridParams)
        gparams.push_back("int64_t " + p);
      gparams.push_back("int64_t *kcc_grid");
      c += wrapCall("", "static void grid_" + s.symbol + "(", gparams, ") {");
      for (int d = 0; d < 3; ++d)
        c += "  kcc_grid[" + std::to_string(d) + "] = " + gridExpr(s.grid[d]) +
             ";\n";
      c += "}\n";
      // The sizes for which kcc proved the stores cover each tensor.
      for (size_t g = 0; g < s.coverage.size(); ++g) {
        std::vector<std::string> cparams;
        for (const std::string &p : sp.guardParams[g])
          cparams.push_back("int64_t " + p);
        if (cparams.empty())
          cparams.push_back("void");
        c += wrapCall("",
                      "static bool covers_" + s.symbol + "_" +
                          std::to_string(g) + "(",
                      cparams, ") {");
        c += "  return " + s.coverage[g].expr + ";\n}\n";
      }
    }
  c += "\n} // namespace kcc_impl\n";

  for (const KernelPlan &kp : plans) {
    const KernelInfo &k = *kp.kernel;
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      std::string desc = "kcc_impl::kernel_" + s.symbol;
      std::vector<std::string> params = typedParams(s);
      params.push_back(stream + " *stream");
      c += "\n";
      c += wrapCall("", "kcc::Status " + s.symbol + "(", params, ") {");
      bool declared = false;
      auto check = [&](const std::string &call,
                       const std::vector<std::string> &args) {
        c += wrapCall(
            "  ",
            (declared ? "kcc_status = " : "kcc::Status kcc_status = ") + call +
                "(",
            args, ");");
        c += "  if (!kcc_status)\n    return kcc_status;\n";
        declared = true;
      };
      for (const ParamInfo &p : s.params) {
        if (p.isPointer)
          check("kcc::rt::checkAlignment", {desc, cString(p.name), p.name,
                                            std::to_string(effectiveAlign(p))});
        else if (isIntegerKind(p.elem) && p.divisibility > 0)
          check("kcc::rt::checkDivisibility",
                {desc, cString(p.name), p.name, int64Literal(p.divisibility)});
      }
      for (size_t g = 0; g < s.coverage.size(); ++g) {
        const std::vector<std::string> &used = sp.guardParams[g];
        c += wrapCall("  ",
                      "if (!kcc_impl::covers_" + s.symbol + "_" +
                          std::to_string(g) + "(",
                      used, ")) {");
        std::vector<std::string> quoted;
        for (const std::string &p : used)
          quoted.push_back(cString(p));
        std::string n = std::to_string(used.size());
        if (used.empty()) {
          c += "    const char *const *kcc_names = nullptr;\n";
          c += "    const int64_t *kcc_values = nullptr;\n";
        } else {
          c += wrapCall("    ", "const char *const kcc_names[] = {", quoted,
                        "};");
          c += wrapCall("    ", "const int64_t kcc_values[] = {", used, "};");
        }
        c += wrapCall("    ", "return kcc::rt::uncoveredTensor(",
                      {desc, cString(s.coverage[g].tensor),
                       cString(s.coverage[g].text), "kcc_names", "kcc_values",
                       n},
                      ");");
        c += "  }\n";
      }
      c += "  int64_t grid[3];\n";
      std::vector<std::string> gargs = sp.gridParams;
      gargs.push_back("grid");
      c += wrapCall("  ", "kcc_impl::grid_" + s.symbol + "(", gargs, ");");
      // TMA tensor maps: encoded here (after the grid, so an empty tensor
      // can be told apart from an empty launch), passed by address.
      std::vector<std::string> mapVars(s.params.size());
      for (size_t i = 0, n = 0; i < s.params.size(); ++i) {
        const ParamInfo &p = s.params[i];
        if (!p.isTensorMap || vendor.amd)
          continue;
        const ParamInfo &base = s.params[p.tensorBase];
        unsigned rank = base.tensorRank;
        mapVars[i] = "kcc_map" + std::to_string(n++);
        c += "  kcc::rt::TensorMap " + mapVars[i] + "; // " +
             commentText(p.name) + "\n";
        c += "  {\n";
        std::vector<std::string> dims, strides, box;
        for (unsigned d = 0; d < rank; ++d)
          dims.push_back(s.params[p.tensorBase + 1 + d].name);
        for (unsigned d = 0; d + 1 < rank; ++d)
          strides.push_back(s.params[p.tensorBase + 1 + rank + d].name);
        for (int64_t b : p.box)
          box.push_back(std::to_string(b));
        c += wrapCall("    ", "const int64_t kcc_dims[] = {", dims, "};");
        if (strides.empty())
          c += "    const int64_t *kcc_strides = nullptr;\n";
        else
          c += wrapCall("    ", "const int64_t kcc_strides[] = {", strides,
                        "};");
        c += wrapCall("    ", "const int32_t kcc_box[] = {", box, "};");
        c += wrapCall(
            "    ",
            (declared ? "kcc_status = " : "kcc::Status kcc_status = ") +
                std::string("kcc::rt::encodeTensorMap("),
            {desc, cString(base.name), "&" + mapVars[i], dtypeEnum(p.elem),
             base.name, std::to_string(rank), "kcc_dims", "kcc_strides",
             "kcc_box", std::to_string(p.swizzle)},
            ");");
        c += "  }\n";
        c += "  if (!kcc_status)\n    return kcc_status;\n";
        c += "  if (!kcc_status.message.empty()) // an empty tensor\n";
        c += wrapCall("    ", "return kcc::rt::emptyTensorLaunch(",
                      {desc, "grid", "kcc_status"}, ");");
        declared = true;
      }
      std::vector<std::string> addrs;
      for (size_t i = 0; i < s.params.size(); ++i)
        if (!s.params[i].isTensorMap)
          addrs.push_back("&" + s.params[i].name);
        else if (!vendor.amd)
          addrs.push_back("&" + mapVars[i]);
      if (addrs.empty())
        c += "  void **args = nullptr;\n";
      else
        c += wrapCall("  ", "void *args[] = {", addrs, "};");
      c += wrapCall("  ", std::string("return ") + vendor.launch + "(",
                    {desc, "grid", "args", "stream"}, ");");
      c += "}\n";
    }

    if (!kp.dispatcher.possible)
      continue;
    const Specialization &first = k.specializations.front();
    std::vector<std::string> params = dispatcherParams(kp);
    params.push_back(stream + " *stream");
    c += "\n";
    c += wrapCall("", "kcc::Status " + k.name + "(", params, ") {");
    std::string compiled;
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      std::string cond;
      for (size_t i = 0; i < s.constants.size(); ++i) {
        const ConstantValue &cv = s.constants[i];
        std::string term;
        if (cv.isDType)
          term = "spec." + cv.name + " == " + dtypeEnum(cv.dtype);
        else if (isBoolConstant(cv))
          term = (cv.intValue ? "spec." : "!spec.") + cv.name;
        else
          term = "spec." + cv.name + " == " + int64Literal(cv.intValue);
        cond += (i ? " && " : "") + term;
      }
      std::vector<std::string> args;
      for (size_t i = 0; i < s.params.size(); ++i) {
        const ParamInfo &p = s.params[i];
        if (p.isTensorMap)
          continue;
        if (kp.dispatcher.pointerIsVoid[i])
          args.push_back("static_cast<" + std::string(cxxType(p.elem)) +
                         " *>(" + p.name + ")");
        else
          args.push_back(p.name);
      }
      args.push_back("stream");
      c += wrapCall("  ", "if (", {cond}, ")");
      c += wrapCall("    ", "return ::" + ns + "::" + s.symbol + "(", args,
                    ");");
      compiled += (compiled.empty() ? "(" : ", (") + constantsText(s) + ")";
    }
    // The message: "<kernel> has no specialization T = f64, BLOCK = 1;
    // compiled: ..."
    std::vector<std::string> pieces;
    for (size_t i = 0; i < first.constants.size(); ++i) {
      const ConstantValue &cv = first.constants[i];
      pieces.push_back(cString((i ? ", " : "") + cv.name + " = "));
      if (cv.isDType)
        pieces.push_back("kcc::dtypeName(spec." + cv.name + ")");
      else if (isBoolConstant(cv))
        pieces.push_back("(spec." + cv.name + " ? \"true\" : \"false\")");
      else
        pieces.push_back("std::to_string(spec." + cv.name + ")");
    }
    pieces.push_back(cString("; compiled: " + compiled));
    c += "  std::string kcc_message = " +
         cString(k.name + " has no specialization ") + ";\n";
    for (size_t i = 0; i < pieces.size(); ++i)
      c += "  kcc_message += " + pieces[i] + ";\n";
    c += "  return kcc::Status{KCC_ERROR_INVALID_ARGUMENT, kcc_message};\n";
    c += "}\n";
  }
  c += "\n} // namespace " + ns + "\n";

  for (const KernelPlan &kp : plans)
    for (const SpecPlan &sp : kp.specs) {
      const Specialization &s = *sp.spec;
      std::vector<std::string> params, args;
      for (const ParamInfo &p : s.params) {
        if (p.isTensorMap)
          continue;
        params.push_back(cParam(p));
        bool half = p.elem == ScalarKind::F16 || p.elem == ScalarKind::BF16;
        if (half && p.isPointer)
          args.push_back("reinterpret_cast<" + std::string(cxxType(p.elem)) +
                         " *>(" + p.name + ")");
        else if (half)
          args.push_back(std::string(cxxType(p.elem)) + "{" + p.name + "}");
        else
          args.push_back(p.name);
      }
      params.push_back(stream + " *stream");
      args.push_back("stream");
      c += "\n";
      c += wrapCall("", "extern \"C\" kcc_status_code kcc_" + s.symbol + "(",
                    params, ") {");
      c += wrapCall(
          "  ", "return kcc::rt::setLastError(::" + ns + "::" + s.symbol + "(",
          args, "));");
      c += "}\n";
    }
  return c;
}

} // namespace

std::string stubNamespace(const std::string &stem) {
  std::string out;
  for (char c : stem) {
    char d = isIdentChar(c) ? c : '_';
    if (d == '_' && !out.empty() && out.back() == '_')
      continue; // no "__" (reserved)
    out += d;
  }
  if (out.empty() || !isIdentStart(out[0]) || out[0] == '_')
    out = "kcc_" + (out.size() && out[0] == '_' ? out.substr(1) : out);
  else if (!nameProblem(out).empty())
    out += "_";
  return out;
}

/// What the embedded image holds, for comments and FatbinDesc::archs: the
/// module's fatbin contents (CUDA), or the AMD targets built, in the order of
/// the module's targets (HIP: "gfx90a, gfx942").
static std::string imageContents(const ModuleInfo &m,
                                 const std::vector<KernelPlan> &plans,
                                 const Vendor &vendor) {
  if (!vendor.amd)
    return m.fatbinContents;
  std::vector<std::string> built;
  for (const KernelPlan &kp : plans)
    for (const SpecPlan &sp : kp.specs)
      for (const TargetBuild *b : sp.builds)
        if (std::find(built.begin(), built.end(), b->target) == built.end())
          built.push_back(b->target);
  std::vector<std::string> ordered;
  for (const std::string &t : m.targets)
    if (std::find(built.begin(), built.end(), t) != built.end() &&
        std::find(ordered.begin(), ordered.end(), t) == ordered.end())
      ordered.push_back(t);
  for (const std::string &t : built)
    if (std::find(ordered.begin(), ordered.end(), t) == ordered.end())
      ordered.push_back(t);
  std::string out;
  for (const std::string &t : ordered)
    out += (out.empty() ? "" : ", ") + t;
  return out;
}

static bool emitStubs(const Vendor &vendor, const ModuleInfo &module,
                      const std::string &image, StubFiles &out,
                      std::string &error, std::string &kernel,
                      std::string &name) {
  out = StubFiles();
  error.clear();
  kernel.clear();
  name.clear();
  for (char ch : module.stem) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '/') {
      error = "the file stem '" + commentText(module.stem) +
              "' cannot be used in #include \"...\"; rename the file";
      return false;
    }
  }
  if (module.stem.empty()) {
    error = "the module has no file stem";
    return false;
  }
  std::vector<KernelPlan> plans;
  if (!plan(module, vendor, plans, error, kernel, name))
    return false;
  std::string ns = stubNamespace(module.stem);
  std::string source = stripDir(module.sourcePath);
  if (source.empty())
    source = module.stem + ".kc";
  std::string contents = imageContents(module, plans, vendor);
  out.headerName = module.stem + vendor.fileSuffix + ".h";
  out.sourceName = module.stem + vendor.fileSuffix + ".cpp";
  out.header = emitHeader(plans, ns, source, vendor, contents);
  out.source = emitSource(module, plans, image, ns, source, vendor, contents);
  return true;
}

bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error) {
  std::string kernel, name;
  return emitStubs(kCuda, module, fatbin, out, error, kernel, name);
}

bool emitCudaStubs(const ModuleInfo &module, const std::string &fatbin,
                   StubFiles &out, std::string &error, std::string &kernel,
                   std::string &name) {
  return emitStubs(kCuda, module, fatbin, out, error, kernel, name);
}

bool emitHipStubs(const ModuleInfo &module, const std::string &bundle,
                  StubFiles &out, std::string &error) {
  std::string kernel, name;
  return emitStubs(kHip, module, bundle, out, error, kernel, name);
}

bool emitHipStubs(const ModuleInfo &module, const std::string &bundle,
                  StubFiles &out, std::string &error, std::string &kernel,
                  std::string &name) {
  return emitStubs(kHip, module, bundle, out, error, kernel, name);
}

} // namespace kcc::host
