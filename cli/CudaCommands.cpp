#include <stdexcept>
#include "cli/Commands.h"
namespace warpforge::cli {
// Temporary during bring-up of issue 3.
int cmdEmit(const Options&) { throw std::runtime_error("emit is not available in this build"); }
int cmdCompile(const Options&) { throw std::runtime_error("compile is not available in this build"); }
int cmdRun(const Options&) { throw std::runtime_error("run is not available in this build"); }
int cmdBench(const Options&) { throw std::runtime_error("bench is not available in this build"); }
}
