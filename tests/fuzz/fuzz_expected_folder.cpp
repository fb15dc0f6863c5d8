// libFuzzer target: `plumb check`'s expected-folder reader (check::read_expected) over a folder
// written from the input. The input is split at each "\n@@\n" into files named, in order, by
// kFiles: a names.json mapping, .npy files named by it or by the output_<k> / input_<k> layout, a
// .pb value, an .npz archive and a Polygraphy .json, so that the folder logic (which files are
// read, names.json's mapping, the layout's indices) meets every reader. Any crash, sanitizer
// report, timeout or allocation past -malloc_limit_mb is a finding.
#include <dirent.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check/onnx/expected.h"

namespace {

constexpr const char* kFiles[] = {"names.json",  "a.npy", "output_0.npy",    "input_0.npy",
                                  "output_1.pb", "b.npz", "polygraphy.json", "input_1.pb"};
constexpr size_t kFileCount = sizeof(kFiles) / sizeof(kFiles[0]);
const std::string kSeparator = "\n@@\n";

// One folder per fuzzing process, made on the first input and emptied before each (left behind
// when the process ends: a few small files).
const std::string& folder() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");  // tools/fuzz.sh points it at /dev/shm: no disk writes
    std::string tmpl =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/plumb_fuzz_expected_XXXXXX";
    const char* made = ::mkdtemp(tmpl.data());
    if (made == nullptr) std::abort();
    return std::string(made);
  }();
  return dir;
}

bool write_file(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string& dir = folder();
  for (const char* name : kFiles) ::unlink((dir + "/" + name).c_str());
  size_t start = 0;
  for (size_t k = 0; k < kFileCount && start <= input.size(); ++k) {
    size_t end = input.find(kSeparator, start);
    if (end == std::string::npos) end = input.size();
    if (!write_file(dir + "/" + kFiles[k], input.substr(start, end - start))) std::abort();
    start = end + kSeparator.size();
  }
  std::vector<std::string> ignored;
  (void)plumb::check::read_expected(dir, &ignored).has_value();
  return 0;
}
