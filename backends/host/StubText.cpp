//===- StubText.cpp - C and C++ text of the host launch stubs -------------===//
//
// The pieces of text the stubs are made of, for the plan (StubPlan.cpp) and
// the emission (StubEmitter.cpp): which names the generated code can use, C
// string literals, comments and clang-format style wrapping, the C and C++
// spelling of parameter types and constants, and the check of grid
// expressions.
//
//===----------------------------------------------------------------------===//
#include "backends/host/StubText.h"

#include "ir/CExpr.h"

#include <cstdio>

namespace kcc::host::detail {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

/// Keywords of C++20 and C23 (and alternative operator spellings).
static const std::set<std::string> &keywords() {
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
static const std::set<std::string> &reservedNames() {
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
                        size_t hang) {
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
  return static_cast<unsigned>(k) <=
         static_cast<unsigned>(ScalarKind::F8E5M2FNUZ);
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
  case ScalarKind::F8E4M3:
    return "kcc::f8e4m3";
  case ScalarKind::F8E5M2:
    return "kcc::f8e5m2";
  case ScalarKind::F8E4M3FNUZ:
    return "kcc::f8e4m3fnuz";
  case ScalarKind::F8E5M2FNUZ:
    return "kcc::f8e5m2fnuz";
  }
  return "void";
}

static const char *cType(ScalarKind k) {
  if (k == ScalarKind::F16 || k == ScalarKind::BF16)
    return "uint16_t";
  if (scalarKindBytes(k) == 1 && isWrappedFloat(k))
    return "uint8_t";
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

static std::string constantValueText(const ConstantValue &c) {
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
      if (name == kMultiprocessorsName) { // num_multiprocessors()
        used.insert(name);
        i = j;
        continue;
      }
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

} // namespace kcc::host::detail
