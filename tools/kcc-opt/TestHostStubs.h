//===- TestHostStubs.h - launch stubs of hand-written tile IR ---*- C++ -*-===//
#ifndef KCC_TOOLS_KCC_OPT_TESTHOSTSTUBS_H
#define KCC_TOOLS_KCC_OPT_TESTHOSTSTUBS_H

namespace kcc {
/// Registers --kcc-test-host-stubs (see TestHostStubs.cpp).
void registerTestHostStubsPass();
} // namespace kcc

#endif // KCC_TOOLS_KCC_OPT_TESTHOSTSTUBS_H
