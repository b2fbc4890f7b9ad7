//===- Frontend.cpp - kcc kernel language to tile IR ----------------------===//
#include "frontend/Frontend.h"

#include "frontend/MLIRGen.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"
#include "ir/Dialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

using namespace kcc::frontend;

mlir::OwningOpRef<mlir::ModuleOp>
kcc::frontend::buildTileIR(llvm::SourceMgr &sourceMgr, mlir::MLIRContext &ctx,
                           const Options &options, unsigned &numErrors) {
  ctx.loadDialect<kcc::KccDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect,
                  mlir::func::FuncDialect>();
  Diagnostics diags(sourceMgr);
  diags.setErrorLimit(options.errorLimit);
  numErrors = 0;
  if (sourceMgr.getNumBuffers() == 0) {
    diags.error(llvm::SMLoc(), "no input");
    numErrors = diags.numErrors();
    return nullptr;
  }
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());

  // 1. Parse (recovering at statements and kernels).
  Module ast = parseModule(buffer->getBuffer(), diags);
  if (ast.kernels.empty() && diags.numErrors() == 0)
    diags.error(llvm::SMLoc::getFromPointer(buffer->getBufferStart()),
                "no kernel in this file; define one with 'kernel name(...) "
                "grid(...) { ... }'");

  // 2. Check signatures and expand specializations.
  std::vector<CheckedKernel> kernels = checkModule(ast, options, ctx, diags);

  // 3. Type check and emit tile IR, one function per specialization.
  auto loc = mlir::FileLineColLoc::get(&ctx, buffer->getBufferIdentifier(), 1, 1);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(loc);
  emitKernels(kernels, *module, diags);

  if (diags.numErrors() == 0) {
    // The IR must verify; a failure here is a frontend bug.
    std::string messages;
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
      llvm::SMLoc smloc;
      if (auto fl = mlir::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
        smloc = sourceMgr.FindLocForLineAndColumn(
            sourceMgr.getMainFileID(), fl.getLine(), fl.getColumn());
      diags.error(smloc, "internal error: the generated tile IR does not "
                         "verify (please report this frontend bug): " +
                             d.str());
      return mlir::success();
    });
    if (mlir::failed(mlir::verify(*module)) && diags.numErrors() == 0)
      diags.error(llvm::SMLoc(),
                  "internal error: the generated tile IR does not verify");
  }
  numErrors = diags.numErrors();
  if (numErrors)
    return nullptr;
  return module;
}
