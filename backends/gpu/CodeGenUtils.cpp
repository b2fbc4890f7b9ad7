//===- CodeGenUtils.cpp - what every LLVM backend stage shares
//-------------===//
#include "backends/gpu/CodeGenUtils.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

Error kcc::codegen::makeError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg.str());
}

Expected<std::unique_ptr<TargetMachine>>
kcc::codegen::createTargetMachine(StringRef tripleName, StringRef cpu,
                                  StringRef features, unsigned optLevel,
                                  bool fpContract) {
  Triple triple(tripleName);
  std::string error;
  const Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return makeError("LLVM has no backend for " + tripleName + ": " + error);
  CodeGenOptLevel level = optLevel == 0   ? CodeGenOptLevel::None
                          : optLevel == 1 ? CodeGenOptLevel::Less
                          : optLevel == 2 ? CodeGenOptLevel::Default
                                          : CodeGenOptLevel::Aggressive;
  TargetOptions options;
  options.AllowFPOpFusion =
      fpContract ? FPOpFusion::Fast : FPOpFusion::Standard;
  std::unique_ptr<TargetMachine> tm(llvmTarget->createTargetMachine(
      triple, cpu, features, options, std::nullopt, std::nullopt, level));
  if (!tm)
    return makeError("cannot create a target machine for " + tripleName + " " +
                     cpu);
  return tm;
}

void kcc::codegen::optimize(Module &module, TargetMachine &tm,
                            unsigned optLevel) {
  module.setTargetTriple(tm.getTargetTriple());
  module.setDataLayout(tm.createDataLayout());
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  OptimizationLevel level = optLevel == 0   ? OptimizationLevel::O0
                            : optLevel == 1 ? OptimizationLevel::O1
                            : optLevel == 2 ? OptimizationLevel::O2
                                            : OptimizationLevel::O3;
  ModulePassManager mpm = optLevel == 0
                              ? pb.buildO0DefaultPipeline(level)
                              : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(module, mam);
}

Expected<std::string> kcc::codegen::emit(Module &module, TargetMachine &tm,
                                         CodeGenFileType kind) {
  std::string out;
  {
    raw_string_ostream os(out);
    buffer_ostream bos(os);
    legacy::PassManager pm;
    if (tm.addPassesToEmitFile(pm, bos, nullptr, kind))
      return makeError("the " + tm.getTargetTriple().str() +
                       " backend cannot emit this file type");
    pm.run(module);
  }
  return out;
}

Expected<std::unique_ptr<kcc::codegen::TempFile>>
kcc::codegen::TempFile::create(StringRef prefix, StringRef suffix) {
  auto f = std::make_unique<TempFile>();
  if (std::error_code ec =
          sys::fs::createTemporaryFile(prefix, suffix, f->path))
    return makeError("cannot create a temporary file: " + ec.message());
  f->remover.setFile(f->path);
  return f;
}

Error kcc::codegen::writeFile(StringRef path, StringRef data) {
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (ec)
    return makeError("cannot write " + path + ": " + ec.message());
  os << data;
  return Error::success();
}

Expected<std::string> kcc::codegen::readFile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError("cannot read " + path);
  return (*buffer)->getBuffer().str();
}

Error kcc::codegen::runTool(StringRef tool, ArrayRef<StringRef> args,
                            std::string &log) {
  Expected<std::unique_ptr<TempFile>> logFile = TempFile::create("kcc", "log");
  if (!logFile)
    return logFile.takeError();
  std::optional<StringRef> redirects[] = {std::nullopt, (*logFile)->path,
                                          (*logFile)->path};
  std::string errMsg;
  int rc =
      sys::ExecuteAndWait(tool, args, std::nullopt, redirects, 0, 0, &errMsg);
  Expected<std::string> out = readFile((*logFile)->path);
  log = out ? *out : std::string();
  if (!out)
    consumeError(out.takeError());
  if (rc != 0)
    return makeError(sys::path::filename(tool) + " failed" +
                     (errMsg.empty() ? "" : " (" + errMsg + ")") + ":\n" + log);
  return Error::success();
}
