//===- FuzzerUtil.h - shared pieces of kcc's libFuzzer targets ----*- C++
//-*-===//
//
// What counts as a bug: a crash or a sanitizer report (libFuzzer sees those
// itself), and diagnostics a user must never see -- an "internal error", an
// error without a source location, an MLIR verifier or legalization failure.
// For those the fuzzers print the message and abort(), which libFuzzer
// records as a crash. Every other diagnostic is the compiler doing its job
// and is swallowed, so fuzzing does not drown in error messages.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_FUZZ_FUZZERUTIL_H
#define KCC_FUZZ_FUZZERUTIL_H

#include "pipeline/Pipeline.h"
#include "frontend/Frontend.h"
#include "ir/Dialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace kcc::fuzz {

/// Reports a compiler bug found by a fuzzer and aborts (libFuzzer then saves
/// the input as crash-<sha1>).
[[noreturn]] inline void bug(const llvm::Twine &what) {
  llvm::errs() << "kcc fuzzer: compiler bug: " << what << "\n";
  llvm::errs().flush();
  std::abort();
}

/// Options an input may carry in comment lines at its very top, spelled as on
/// kcc's command line so that a crashing input reproduces with
/// `kcc crash.kc <the same options>`:
///   //-D NAME=VALUE      a constant for every specialization (-D)
///   //--target=sm_80     the target (pipeline fuzzer; default sm_90a)
///   //--num-warps=4      warps per CTA (pipeline fuzzer; default: chosen)
///   //--persistent=1     persistent builds of group(N) kernels (pipeline
///                        fuzzer; default 0)
///   //--fallback-builds=true  fallback builds of kernels over tensors
///                        (pipeline fuzzer; default false: they double the
///                        work per input, and CI's 60 s would not get past
///                        the seeds; the dictionary holds the line)
/// The lexer sees them as comments.
struct InputOptions {
  std::vector<frontend::Define> defines;
  std::string target;
  unsigned numWarps = 0;
  unsigned persistent = 0;
  bool fallbackBuilds = false;
  bool valid = true; // false: an option kcc's command line would refuse
};

inline InputOptions parseInputOptions(llvm::StringRef text) {
  InputOptions options;
  while (text.starts_with("//-")) {
    auto [line, rest] = text.split('\n');
    text = rest;
    line = line.drop_front(2).rtrim("\r");
    if (line.consume_front("-D")) {
      line = line.ltrim(' ');
      auto [name, value] = line.split('=');
      // kcc refuses a -D without NAME=VALUE before compiling.
      if (name.empty() || value.empty() || !line.contains('=')) {
        options.valid = false;
        continue;
      }
      options.defines.push_back({name.str(), value.str()});
    } else if (line.consume_front("--target=")) {
      options.target = line.str();
    } else if (line.consume_front("--num-warps=")) {
      // kcc accepts a power of two from 1 to 32.
      if (line.getAsInteger(10, options.numWarps) || options.numWarps == 0 ||
          options.numWarps > 32 ||
          (options.numWarps & (options.numWarps - 1)) != 0)
        options.valid = false;
    } else if (line.consume_front("--persistent=")) {
      // kcc accepts any unsigned; the CTAs per multiprocessor only bound
      // the launch, so small values cover the compiler's paths.
      if (line.getAsInteger(10, options.persistent) || options.persistent > 64)
        options.valid = false;
    } else if (line.consume_front("--fallback-builds=")) {
      // kcc's boolean option takes true/false (and 1/0).
      if (line == "true" || line == "1")
        options.fallbackBuilds = true;
      else if (line != "false" && line != "0")
        options.valid = false;
    }
  }
  return options;
}

/// Routes the frontend's diagnostics (SourceMgr) to a check instead of
/// stderr: internal errors and errors without a location (other than those
/// about -D, which has none) are bugs.
inline void silenceSourceMgr(llvm::SourceMgr &sourceMgr) {
  sourceMgr.setDiagHandler(
      [](const llvm::SMDiagnostic &diag, void *) {
        if (diag.getKind() != llvm::SourceMgr::DK_Error)
          return;
        llvm::StringRef msg = diag.getMessage();
        if (msg.starts_with("internal error"))
          bug("frontend internal error: " + msg);
        if (!diag.getLoc().isValid() && !msg.contains("-D "))
          bug("frontend error without a source location: " + msg);
      },
      nullptr);
}

/// Every dialect and translation kcc's driver registers (Driver.cpp).
inline std::unique_ptr<mlir::MLIRContext> createContext() {
  mlir::DialectRegistry registry;
  pipeline::registerCompilerDialects(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  ctx->disableMultithreading();
  ctx->printOpOnDiagnostic(false);
  return ctx;
}

/// One MLIR context for many inputs, as the driver uses one for all its
/// inputs. Uniqued types and attributes accumulate in a context, so it is
/// replaced now and then to keep a long fuzzing run's memory flat.
class ContextPool {
public:
  mlir::MLIRContext &get() {
    if (!ctx || ++uses > kMaxUses) {
      ctx.reset();
      ctx = createContext();
      uses = 0;
    }
    return *ctx;
  }

private:
  static constexpr unsigned kMaxUses = 2000;
  std::unique_ptr<mlir::MLIRContext> ctx;
  unsigned uses = 0;
};

/// Whether `loc` (possibly fused or named) points into a source file.
inline bool hasFileLocation(mlir::Location loc) {
  bool found = false;
  loc->walk([&](mlir::Location l) {
    if (mlir::isa<mlir::FileLineColLoc>(l))
      found = true;
    return found ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
  });
  return found;
}

} // namespace kcc::fuzz

#endif // KCC_FUZZ_FUZZERUTIL_H
