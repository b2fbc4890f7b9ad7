//===- MessageText.h - user text quoted in a message --------------*- C++
//-*-===//
//
// An error that quotes what the user wrote (an unknown key, target or
// kernel name) quotes at most a line of it: a name of a million characters
// must not become a message of a million characters.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_IR_MESSAGETEXT_H
#define KCC_IR_MESSAGETEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kcc {

/// `text` as an error quotes it: whole up to 80 characters, else its first
/// 64 and how long it is.
inline std::string elidedText(llvm::StringRef text) {
  constexpr size_t kWhole = 80, kKept = 64;
  if (text.size() <= kWhole)
    return text.str();
  return text.take_front(kKept).str() + "... (" + std::to_string(text.size()) +
         " characters)";
}

} // namespace kcc

#endif // KCC_IR_MESSAGETEXT_H
