//===- KccSanitizerDefaults.cpp - sanitizer options of KCC_SANITIZE builds ===//
//
// Linked into every executable of a KCC_SANITIZE build
// (cmake/KccSanitizers.cmake). The runtimes read these defaults first; the
// usual environment variables (ASAN_OPTIONS, ...) still override them.
//
//===----------------------------------------------------------------------===//

extern "C" {

// LLVM's BumpPtrAllocator, inlined from llvm/Support/Allocator.h into our
// ASan-compiled code, poisons every new slab and unpoisons each allocation it
// hands out. The uninstrumented libMLIR.so allocates from the same allocators
// (the context's uniquer) without unpoisoning, so ASan would report
// use-after-poison on MLIR's own valid memory. Manual poisoning is therefore
// off; ASan's own checks (heap, stack, globals of our code) are unaffected.
const char *__asan_default_options() { return "allow_user_poisoning=0"; }

// -fno-sanitize-recover=all stops at the first report; say where it was.
const char *__ubsan_default_options() { return "print_stacktrace=1"; }

// Leaks inside LLVM/MLIR that are not ours (see the file for each entry).
const char *__lsan_default_options() {
  return "suppressions=" KCC_LSAN_SUPPRESSIONS;
}
}
