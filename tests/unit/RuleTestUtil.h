// Helpers shared by the unit tests of the rule checkers (targets/*Rules.cpp).
#ifndef KCC_TESTS_UNIT_RULETESTUTIL_H
#define KCC_TESTS_UNIT_RULETESTUTIL_H

#include "targets/WgmmaRules.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

namespace kcc::test {
/// The rule name an error carries ("" for success).
inline std::string ruleOf(llvm::Error err) {
  return consumeRuleName(std::move(err));
}
template <typename T> std::string ruleOf(llvm::Expected<T> value) {
  return value ? std::string() : consumeRuleName(value.takeError());
}

/// Unwraps `value`; on error records a failed check and returns nothing.
/// (Unlike REQUIRE this also builds with exceptions off and no doctest flag.)
template <typename T> std::optional<T> valueOf(llvm::Expected<T> value) {
  if (value)
    return std::move(*value);
  FAIL_CHECK(llvm::toString(value.takeError()));
  return std::nullopt;
}
} // namespace kcc::test

#endif // KCC_TESTS_UNIT_RULETESTUTIL_H
