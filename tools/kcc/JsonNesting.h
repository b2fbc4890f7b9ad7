//===- JsonNesting.h - how deep a JSON text nests --------------*- C++ -*-===//
//
// llvm::json::parse recurses once per nesting level, so a deeply nested
// input would overflow the stack before it could be refused: kcc's JSON
// readers (`kcc legality tma` lines, tuning databases) bound it first.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TOOLS_KCC_JSONNESTING_H
#define KCC_TOOLS_KCC_JSONNESTING_H

#include "llvm/ADT/StringRef.h"

namespace kcc::driver {

/// How deep `text`'s arrays and objects nest (brackets inside strings do
/// not count).
unsigned jsonNesting(llvm::StringRef text);

} // namespace kcc::driver

#endif // KCC_TOOLS_KCC_JSONNESTING_H
