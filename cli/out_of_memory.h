// What the CLI does when memory runs out, wherever it runs out: it says so in words ("out of
// memory while running `slicelab report`", with what to do) and exits 1, instead of printing
// "std::bad_alloc" or being terminated.
#pragma once

#include <cstddef>
#include <string>

namespace slicelab {

// Installs, for the whole process, a new-handler with a reserve and a terminate handler; call
// once, first thing in main(). The reserve (`reserve_bytes` of address space in a few chunks,
// untouched) is given back one chunk per failed allocation: the allocation then fails with
// std::bad_alloc, or, while an exception unwinds, retries, because nlohmann's destructors
// allocate (a stack of the children they free) and would otherwise fail inside a noexcept
// destructor. Where that still happens (a destructor outside any unwinding), std::terminate
// runs, and the terminate handler prints the out-of-memory message and exits 1 when what ended
// the process was std::bad_alloc; any other cause ends it as before (abort).
void install_out_of_memory_handling(std::size_t reserve_bytes);

// The command the message names ("slicelab report"), set once the command line is parsed.
void set_out_of_memory_command(const std::string& command);

// Prints "error: out of memory while running `COMMAND`: ..." to stderr, allocating nothing.
void print_out_of_memory();

}  // namespace slicelab
