#include "tools/input_files.h"

#include <sys/stat.h>

#include "tools/npy.h"

namespace plumb::cli {

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool file_exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string data_input_file(const std::string& dir, size_t k) {
  if (dir.empty()) return "";
  const std::string npy = dir + "/input_" + std::to_string(k) + ".npy";
  const std::string pb = dir + "/input_" + std::to_string(k) + ".pb";
  return file_exists(npy) ? npy : file_exists(pb) ? pb : "";
}

Expected<rt::RtValue> read_value(const std::string& file, const ir::Type& declared) {
  if (ends_with(file, ".pb")) return read_input_pb(file, declared);
  auto t = read_npy(file);
  if (!t) return t.status();
  return rt::RtValue(std::move(*t));
}

}  // namespace plumb::cli
