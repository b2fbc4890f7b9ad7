//===- JsonNesting.cpp - how deep a JSON text nests -----------------------===//

#include "tools/kcc/JsonNesting.h"

#include <algorithm>

unsigned kcc::driver::jsonNesting(llvm::StringRef text) {
  unsigned depth = 0, deepest = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth)
      --depth;
  }
  return deepest;
}
