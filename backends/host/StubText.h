//===- StubText.h - C and C++ text of the host launch stubs -----*- C++ -*-===//
//
// Internal to backends/host: the text helpers StubText.cpp defines (and
// documents) for StubPlan.cpp and StubEmitter.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_HOST_STUBTEXT_H
#define KCC_BACKENDS_HOST_STUBTEXT_H

#include "backends/host/KernelInfo.h"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace kcc::host::detail {

constexpr size_t kLineWidth = 80;

// Names.
bool isIdentStart(char c);
bool isIdentChar(char c);
std::string nameProblem(const std::string &name);
std::string stripDir(const std::string &path);

// Text.
std::string cString(const std::string &text);
std::string commentText(const std::string &text);
std::string int64Literal(int64_t v);
std::string wrapCall(const std::string &indent, const std::string &head,
                     const std::vector<std::string> &params,
                     const std::string &tail);
std::string wrapComment(const std::string &prefix, const std::string &text,
                        size_t hang = 0);

// Types.
bool validKind(ScalarKind k);
const char *cxxType(ScalarKind k);
std::string dtypeEnum(ScalarKind k);
std::string cxxParam(const ParamInfo &p);
std::string cParam(const ParamInfo &p);
bool isBoolConstant(const ConstantValue &c);
std::string constantsText(const Specialization &s);
unsigned effectiveAlign(const ParamInfo &p);

// Grid expressions.
bool scanGrid(const std::string &expr, const Specialization &s,
              std::set<std::string> &used, std::string &error);
std::string gridExpr(const std::string &e);

} // namespace kcc::host::detail

#endif // KCC_BACKENDS_HOST_STUBTEXT_H
