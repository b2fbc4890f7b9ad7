//===- PtxInlineAsm.cpp - format and match the inline PTX templates -------===//

#include "targets/PtxInlineAsm.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace kcc::ptx;
using llvm::StringRef;

namespace {

enum class FieldKind { Int, Word, Regs };

/// The field at the start of `t` ("<name>" or "<name:kind>"), its kind and
/// its length in the template; nullopt where `t` does not start a field.
struct Field {
  StringRef name;
  FieldKind kind;
  size_t length;
};

std::optional<Field> fieldAt(StringRef t) {
  if (!t.starts_with("<"))
    return std::nullopt;
  size_t end = t.find('>');
  if (end == StringRef::npos)
    return std::nullopt;
  StringRef spec = t.slice(1, end);
  auto [name, kind] = spec.split(':');
  if (name.empty() ||
      !llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return std::nullopt;
  Field f{name, FieldKind::Int, end + 1};
  if (kind == "word")
    f.kind = FieldKind::Word;
  else if (kind == "regs")
    f.kind = FieldKind::Regs;
  else if (!kind.empty())
    return std::nullopt;
  return f;
}

/// The value given for field `f` of `t`; a missing one is a bug in the
/// lowering that formats `t`.
template <typename Map>
const typename Map::mapped_type &valueOf(const Map &m, const Field &f,
                                         const AsmTemplate &t) {
  auto it = m.find(f.name);
  if (it == m.end())
    llvm::report_fatal_error("ptx::format: no value for <" + f.name + "> of " +
                             t.name);
  return it->second;
}

/// Records `v` for field `name`, or checks it against the value its first
/// use took (a field named twice in a template).
template <typename Map, typename T>
bool bindField(Map &m, StringRef name, const T &v) {
  auto [it, fresh] = m.try_emplace(name, v);
  return fresh || it->second == v;
}

} // namespace

AsmFields &AsmFields::setRange(StringRef name, unsigned first, unsigned count) {
  std::vector<unsigned> r(count);
  for (unsigned i = 0; i < count; ++i)
    r[i] = first + i;
  return set(name, std::move(r));
}

std::string kcc::ptx::format(const AsmTemplate &t, const AsmFields &fields) {
  std::string out;
  llvm::raw_string_ostream os(out);
  StringRef rest = t.text;
  while (!rest.empty()) {
    std::optional<Field> f = fieldAt(rest);
    if (!f) {
      os << rest.front();
      rest = rest.drop_front();
      continue;
    }
    rest = rest.drop_front(f->length);
    switch (f->kind) {
    case FieldKind::Int:
      os << valueOf(fields.ints, *f, t);
      break;
    case FieldKind::Word:
      os << valueOf(fields.words, *f, t);
      break;
    case FieldKind::Regs: {
      const std::vector<unsigned> &regs = valueOf(fields.regs, *f, t);
      for (size_t i = 0; i < regs.size(); ++i)
        os << (i ? ", $" : "$") << regs[i];
      break;
    }
    }
  }
  return out;
}

std::optional<AsmFields> kcc::ptx::match(const AsmTemplate &t, StringRef text,
                                         std::string *why) {
  AsmFields fields;
  StringRef rest = text, tmpl = t.text;
  auto fail = [&](const llvm::Twine &what) -> std::optional<AsmFields> {
    if (why) {
      std::string at = rest.take_front(40).str();
      *why = ("not kcc's " + t.name + " form: " + what + " at '" + at +
              (rest.size() > 40 ? "...'" : "'"))
                 .str();
    }
    return std::nullopt;
  };
  // Characters of the current literal run matched so far: a mismatch is
  // reported from the start of the word it is in ("expected 'f32' at
  // 'f16...'", not "expected '32'").
  size_t run = 0;
  auto isSep = [](char c) {
    return c == ' ' || c == '.' || c == '\n' || c == ',' || c == '{' ||
           c == '}' || c == '[' || c == ']' || c == ';';
  };
  while (!tmpl.empty()) {
    std::optional<Field> f = fieldAt(tmpl);
    if (!f) {
      if (rest.empty() || rest.front() != tmpl.front()) {
        size_t back = 0;
        while (back < run && !isSep(tmpl.data()[-int64_t(back) - 1]))
          ++back;
        tmpl = StringRef(tmpl.data() - back, tmpl.size() + back);
        rest = StringRef(rest.data() - back, rest.size() + back);
        std::string expected =
            tmpl.take_until([&](char c) { return c == '<' || isSep(c); }).str();
        if (expected.empty())
          expected = std::string(1, tmpl.front());
        return fail("expected '" + expected + "'");
      }
      rest = rest.drop_front();
      tmpl = tmpl.drop_front();
      ++run;
      continue;
    }
    run = 0;
    tmpl = tmpl.drop_front(f->length);
    switch (f->kind) {
    case FieldKind::Int: {
      size_t n = rest.starts_with("-") ? 1 : 0;
      while (n < rest.size() && llvm::isDigit(rest[n]))
        ++n;
      int64_t v;
      if (rest.take_front(n).getAsInteger(10, v))
        return fail("expected an integer for <" + f->name + ">");
      if (!bindField(fields.ints, f->name, v))
        return fail("<" + f->name + "> differs from its first use");
      rest = rest.drop_front(n);
      break;
    }
    case FieldKind::Word: {
      size_t n = 0;
      while (n < rest.size() && (llvm::isAlnum(rest[n]) || rest[n] == '_'))
        ++n;
      if (n == 0)
        return fail("expected a word for <" + f->name + ">");
      if (!bindField(fields.words, f->name, rest.take_front(n).str()))
        return fail("<" + f->name + "> differs from its first use");
      rest = rest.drop_front(n);
      break;
    }
    case FieldKind::Regs: {
      std::vector<unsigned> regs;
      do {
        if (!regs.empty())
          rest = rest.drop_front(2); // ", "
        size_t n = 1;
        while (n < rest.size() && llvm::isDigit(rest[n]))
          ++n;
        unsigned v;
        if (!rest.starts_with("$") ||
            rest.take_front(n).drop_front().getAsInteger(10, v))
          return fail("expected an asm operand ($N) in <" + f->name + ">");
        regs.push_back(v);
        rest = rest.drop_front(n);
      } while (rest.starts_with(", $"));
      fields.regs[f->name] = std::move(regs);
      break;
    }
    }
  }
  if (!rest.empty())
    return fail("unexpected text");
  return fields;
}
