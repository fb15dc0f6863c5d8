// TEMPORARY: placeholders for the compute family until its kernels land. Delete when done.
#include "runtime/cpu/ref/kernel.h"
namespace plumb::rt::ref {
}
