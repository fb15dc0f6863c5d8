// The thread count of oneDNN's primitives, per session (--threads, PrepareOptions::threads).
// Debian's oneDNN runs on the OpenMP runtime (DNNL_CPU_RUNTIME=OMP): a primitive takes its thread
// count from omp_get_max_threads() when it is created and when it runs, and that count is the
// calling thread's own (its nthreads ICV), so a scope can set it and put the caller's back without
// touching any other thread or session. With another oneDNN runtime, nothing is changed.
#pragma once

#include <omp.h>

#include <oneapi/dnnl/dnnl.h>

namespace plumb::rt::cpu {

class OmpThreads {
 public:
  explicit OmpThreads(int threads)
      : on_(dnnl_version()->cpu_runtime == DNNL_RUNTIME_OMP && threads > 0),
        old_(on_ ? omp_get_max_threads() : 0) {
    if (on_) omp_set_num_threads(threads);
  }
  ~OmpThreads() {
    if (on_) omp_set_num_threads(old_);
  }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;

 private:
  bool on_;
  int old_;
};

}  // namespace plumb::rt::cpu
