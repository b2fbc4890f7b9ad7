//===- CodeGen.cpp - LLVM IR to PTX, cubin and fatbin
//-----------------------===//
#include "backends/nvidia/CodeGen.h"
#include "backends/gpu/CodeGenUtils.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <cstdlib>
#include <mutex>

using namespace llvm;
using namespace kcc;
using namespace kcc::nvidia;

static constexpr const char *kTriple = "nvptx64-nvidia-cuda";

using codegen::makeError;
using codegen::readFile;
using codegen::runTool;
using codegen::TempFile;
using codegen::writeFile;

std::string nvidia::getCudaPath() {
  if (const char *env = std::getenv("CUDA_PATH"); env && *env)
    return env;
  return KCC_DEFAULT_CUDA_PATH;
}

Expected<std::string> nvidia::findCudaTool(StringRef name) {
  std::string root = getCudaPath();
  SmallString<256> path(root);
  sys::path::append(path, "bin", name);
  if (sys::fs::can_execute(path))
    return std::string(path);
  if (ErrorOr<std::string> onPath = sys::findProgramByName(name))
    return *onPath;
  return makeError("cannot find '" + name + "' (looked in " + root +
                   "/bin and on PATH); set CUDA_PATH to a CUDA toolkit "
                   "(12.8 or newer), or stop at --emit=ptx");
}

void nvidia::registerBackend() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

Expected<std::unique_ptr<TargetMachine>>
nvidia::createTargetMachine(const TargetModel &target, unsigned optLevel,
                            bool fpContract) {
  registerBackend();
  return codegen::createTargetMachine(
      kTriple, target.llvmCpu(), target.llvmFeatures(), optLevel, fpContract);
}

/// Links the functions of libdevice that the module calls (__nv_*).
static Error linkLibdevice(Module &module) {
  bool needed = any_of(module.functions(), [](const Function &f) {
    return f.isDeclaration() && f.getName().starts_with("__nv_");
  });
  if (!needed)
    return Error::success();
  SmallString<256> path(getCudaPath());
  sys::path::append(path, "nvvm", "libdevice", "libdevice.10.bc");
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(path);
  if (!buffer)
    return makeError("cannot read libdevice at " + path +
                     " (needed for f64 math); set CUDA_PATH to a CUDA toolkit");
  Expected<std::unique_ptr<Module>> libdevice =
      parseBitcodeFile(**buffer, module.getContext());
  if (!libdevice)
    return libdevice.takeError();
  (*libdevice)->setTargetTriple(module.getTargetTriple());
  (*libdevice)->setDataLayout(module.getDataLayout());
  if (Linker::linkModules(module, std::move(*libdevice),
                          Linker::Flags::LinkOnlyNeeded))
    return makeError("linking libdevice failed");
  // Only kernels are entry points; everything else may be inlined/dropped.
  internalizeModule(module, [](const GlobalValue &gv) {
    const auto *f = dyn_cast<Function>(&gv);
    return f && f->getCallingConv() == CallingConv::PTX_Kernel;
  });
  return Error::success();
}

Error nvidia::optimizeModule(Module &module, TargetMachine &tm,
                             unsigned optLevel) {
  module.setTargetTriple(tm.getTargetTriple());
  module.setDataLayout(tm.createDataLayout());
  if (Error e = linkLibdevice(module))
    return e;

  codegen::optimize(module, tm, optLevel);
  return Error::success();
}

Expected<std::string> nvidia::emitPTX(Module &module, TargetMachine &tm) {
  return codegen::emit(module, tm, CodeGenFileType::AssemblyFile);
}

bool nvidia::parsePtxasResources(StringRef log, StringRef symbol,
                                 PtxasResources &out) {
  // ptxas info    : Compiling entry function 'k' for 'sm_90a'
  // ptxas info    : Function properties for k
  //     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
  // ptxas info    : Used 32 registers, used 1 barriers, 256 bytes smem
  std::string header = ("Compiling entry function '" + symbol + "'").str();
  size_t start = log.find(header);
  if (start == StringRef::npos)
    return false;
  StringRef rest = log.substr(start + header.size());
  rest = rest.substr(0, rest.find("Compiling entry function"));
  auto numberBefore = [&](StringRef text, StringRef unit) -> unsigned {
    size_t pos = text.find(unit);
    if (pos == StringRef::npos)
      return 0;
    StringRef head = text.substr(0, pos).rtrim();
    size_t begin = head.find_last_not_of("0123456789");
    unsigned value = 0;
    head.substr(begin == StringRef::npos ? 0 : begin + 1)
        .getAsInteger(10, value);
    return value;
  };
  out.stackBytes = numberBefore(rest, " bytes stack frame");
  out.spillStoreBytes = numberBefore(rest, " bytes spill stores");
  out.spillLoadBytes = numberBefore(rest, " bytes spill loads");
  out.registers = numberBefore(rest, " registers");
  out.sharedBytes = numberBefore(rest, " bytes smem");
  return true;
}

Expected<Cubin> nvidia::runPtxas(StringRef ptx, const TargetModel &target,
                                 unsigned optLevel, unsigned jobs) {
  Expected<std::string> ptxas = findCudaTool("ptxas");
  if (!ptxas)
    return ptxas.takeError();
  Expected<std::unique_ptr<TempFile>> in = TempFile::create("kcc", "ptx");
  if (!in)
    return in.takeError();
  Expected<std::unique_ptr<TempFile>> out = TempFile::create("kcc", "cubin");
  if (!out)
    return out.takeError();
  if (Error e = writeFile((*in)->path, ptx))
    return std::move(e);
  std::string arch = "-arch=sm_" + target.fatbinArch();
  std::string opt = "-O" + std::to_string(optLevel);
  std::string split = "-split-compile=" + std::to_string(jobs);
  StringRef args[] = {*ptxas, arch, opt,          split,
                      "-v",   "-o", (*out)->path, (*in)->path};
  Cubin cubin;
  if (Error e = runTool(*ptxas, args, cubin.ptxasLog))
    return std::move(e);
  Expected<std::string> data = readFile((*out)->path);
  if (!data)
    return data.takeError();
  cubin.data = std::move(*data);
  return cubin;
}

std::optional<std::pair<std::string, std::string>>
nvidia::ptxasRefuses(const TargetModel &model) {
  if (model.vendor != Vendor::NVIDIA)
    return std::nullopt;
  // Nothing to ask without a ptxas: the compile reports that itself.
  if (Expected<std::string> ptxas = findCudaTool("ptxas"); !ptxas) {
    consumeError(ptxas.takeError());
    return std::nullopt;
  }
  // One empty kernel: ptxas checks the .version/.target pair only for code.
  std::string arch = "sm_" + model.fatbinArch();
  std::string isa = std::to_string(model.ptxIsa / 10) + "." +
                    std::to_string(model.ptxIsa % 10);
  std::string ptx = ".version " + isa + "\n.target " + arch +
                    "\n.address_size 64\n.visible .entry kcc_probe() { ret; "
                    "}\n";
  Expected<Cubin> cubin = runPtxas(ptx, model, /*optLevel=*/0);
  if (cubin)
    return std::nullopt;
  std::string log = toString(cubin.takeError()); // carries ptxas's output
  // ptxas's own line, without its file name and the "aborted" trailer.
  std::string said;
  for (StringRef line : llvm::split(log, '\n'))
    if (line.contains("error") || line.contains("fatal"))
      if (!line.contains("aborted due to errors")) {
        said = line.substr(line.find_last_of(":") + 1).trim().str();
        break;
      }
  // An architecture ptxas does not know is the sm's fault; a PTX ISA
  // version it does not know, or one too old for the architecture, the
  // ISA's.
  std::string key = StringRef(log).contains("gpu-name") ? "sm" : "ptx_isa";
  return std::pair{
      key, "ptxas does not assemble ptx_isa = " + std::to_string(model.ptxIsa) +
               " (PTX ISA " + isa + ") for " + arch + ": " + said +
               "; the installed ptxas decides which PTX ISA "
               "versions and architectures exist"};
}

Expected<std::string>
nvidia::runFatbinary(const std::vector<FatbinImage> &images) {
  Expected<std::string> fatbinary = findCudaTool("fatbinary");
  if (!fatbinary)
    return fatbinary.takeError();
  std::vector<std::unique_ptr<TempFile>> files;
  std::vector<std::string> args = {*fatbinary, "-64"};
  Expected<std::unique_ptr<TempFile>> out = TempFile::create("kcc", "fatbin");
  if (!out)
    return out.takeError();
  args.push_back("--create=" + std::string((*out)->path));
  for (const FatbinImage &image : images) {
    Expected<std::unique_ptr<TempFile>> f =
        TempFile::create("kcc", image.isPTX ? "ptx" : "cubin");
    if (!f)
      return f.takeError();
    if (Error e = writeFile((*f)->path, image.data))
      return std::move(e);
    args.push_back("--image3=kind=" + std::string(image.isPTX ? "ptx" : "elf") +
                   ",sm=" + image.target->fatbinArch() +
                   ",file=" + std::string((*f)->path));
    files.push_back(std::move(*f));
  }
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string log;
  if (Error e = runTool(*fatbinary, argRefs, log))
    return std::move(e);
  return readFile((*out)->path);
}
