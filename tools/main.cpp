// The plumb CLI: placeholder entry until the commands land (issue 2+).
#include <cstdio>
int main(int argc, char** argv) {
  std::fprintf(stderr, "plumb: no command given\n");
  return 2;
}
