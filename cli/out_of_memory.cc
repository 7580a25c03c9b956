#include "cli/out_of_memory.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

namespace slicelab {
namespace {

// The process-wide state the handlers need (a new-handler and a terminate handler are plain
// functions, and the failure may come in any thread); nothing else in the CLI is global.
//
// The reserve, in chunks: an allocation that may fail without harm (std::stable_sort asks for
// its buffer with nothrow new, which calls the new-handler too, and then asks for less) takes
// one chunk, not the whole reserve.
constexpr size_t kChunks = 8;
std::array<std::atomic<void*>, kChunks> reserve{};
// The command, copied in before the run: the message is printed without allocating.
std::array<char, 256> command{"slicelab"};
std::terminate_handler previous_terminate = nullptr;

void on_failed_allocation() {
  void* chunk = nullptr;
  for (std::atomic<void*>& c : reserve)
    if ((chunk = c.exchange(nullptr)) != nullptr) break;
  std::free(chunk);
  // While an exception unwinds, the allocation is a destructor's: it retries in the room just
  // made. Otherwise the failure is the news: the operation ends with bad_alloc.
  if (chunk != nullptr && std::uncaught_exceptions() > 0) return;
  if (chunk == nullptr) std::set_new_handler(nullptr);  // nothing left: later failures throw
  throw std::bad_alloc();
}

[[noreturn]] void on_terminate() {
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::bad_alloc&) {
      print_out_of_memory();
      std::_Exit(1);
    } catch (...) {  // not ours to word: as before
    }
  }
  if (previous_terminate != nullptr) previous_terminate();
  std::abort();
}

}  // namespace

void install_out_of_memory_handling(std::size_t reserve_bytes) {
  // Untouched, the chunks cost address space (what `ulimit -v` limits), no resident memory.
  for (std::atomic<void*>& chunk : reserve)
    std::free(chunk.exchange(std::malloc(reserve_bytes / kChunks)));
  std::set_new_handler(on_failed_allocation);
  previous_terminate = std::set_terminate(on_terminate);
}

void set_out_of_memory_command(const std::string& name) {
  const size_t n = std::min(name.size(), command.size() - 1);
  std::memcpy(command.data(), name.data(), n);
  command[n] = '\0';
}

void print_out_of_memory() {
  std::fprintf(stderr,
               "error: out of memory while running `%s`: the input asks for more memory than this "
               "process may use (docs/scenario-format.md#limits lists the limits); give it a "
               "smaller input, fewer parallel jobs (-j 1), or more memory (ulimit -v, the "
               "container's limit)\n",
               command.data());
}

}  // namespace slicelab
