// A char iterator for nlohmann's parser that publishes how far the parser has read, so that a
// SAX callback can say where a value begins or ends, or where a check stopped the parse.
#pragma once

#include <cstddef>
#include <iterator>

namespace slicelab {

// Each increment stores the new position in *seen. nlohmann's lexer reads one character at a
// time and never looks ahead past a '{', '[', '}' or ']', so at start_object the last character
// read is the object's '{', and at end_object its '}'.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* p, const char** seen) : p_(p), seen_(seen) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    *seen_ = p_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return p_ == other.p_; }
  bool operator!=(const CountingIterator& other) const { return p_ != other.p_; }

 private:
  const char* p_;
  const char** seen_;
};

}  // namespace slicelab
