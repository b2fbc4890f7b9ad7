//===- Parser.h - recursive-descent parser for kcc kernels --------*- C++ -*-===//
#ifndef KCC_FRONTEND_PARSER_H
#define KCC_FRONTEND_PARSER_H

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Lexer.h"

namespace kcc::frontend {

/// Parses a whole file. Syntax errors are reported through `diags`; the
/// parser recovers at statement and kernel boundaries, so the returned module
/// holds every kernel and statement that could be parsed.
Module parseModule(llvm::StringRef buffer, Diagnostics &diags);

/// Parses a single expression (used by unit tests). Returns null on error.
ExprPtr parseExpression(llvm::StringRef buffer, Diagnostics &diags);

} // namespace kcc::frontend

#endif
