// TEMPORARY: placeholders for the compute family until its inference lands. Delete when done.
#include "ir/infer.h"
namespace plumb::ir {
}
