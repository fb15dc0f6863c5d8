// The sorted names of a folder's entries, dot-files left out (none when it cannot be read): how
// the whole-model tests find tests/models/<name>/ and tests/models/dynamic/<name>/data_*/.
#pragma once

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

namespace plumb::test_support {

inline std::vector<std::string> subfolders(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n[0] != '.') names.push_back(n);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace plumb::test_support
