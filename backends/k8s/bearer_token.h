// A bearer token that clients of the extender's server present (`Authorization: Bearer <token>`),
// read from a file so that it never appears on a command line, and checked in constant time.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace slicelab::k8s {

class BearerToken {
 public:
  // The token is the file's text without surrounding whitespace (a Secret's key mounted as a
  // file, with or without a final newline). Throws std::runtime_error naming the file when it
  // cannot be read, is larger than kMaxFileBytes, is empty or holds a character outside
  // visible ASCII (a token is a single header word).
  static BearerToken from_file(const std::string& path);
  // The same checks on a token given as text (tests); `source` names it in errors.
  static BearerToken from_text(std::string_view token, std::string_view source);

  // Whether an Authorization header value is "Bearer <this token>" (the scheme in any case, as
  // RFC 9110 says). Only SHA-256 digests are compared, with CRYPTO_memcmp: the time taken does
  // not depend on how much of the token, or of its length, a guess got right.
  bool matches(std::string_view authorization) const;

  static constexpr std::size_t kMaxFileBytes = 4096;

 private:
  explicit BearerToken(const std::array<unsigned char, 32>& digest) : digest_(digest) {}
  std::array<unsigned char, 32> digest_{};
};

}  // namespace slicelab::k8s
