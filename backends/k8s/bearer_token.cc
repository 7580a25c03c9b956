#include "backends/k8s/bearer_token.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <fstream>
#include <stdexcept>

namespace slicelab::k8s {
namespace {

std::array<unsigned char, 32> sha256(std::string_view text) {
  std::array<unsigned char, 32> digest{};
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != digest.size()) {
    throw std::runtime_error("SHA-256 is not available");
  }
  return digest;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

BearerToken BearerToken::from_text(std::string_view token, std::string_view source) {
  token = trimmed(token);
  if (token.empty()) throw std::runtime_error(fmt::format("{}: the token is empty", source));
  for (size_t i = 0; i < token.size(); ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c <= 0x20 || c >= 0x7f) {
      throw std::runtime_error(fmt::format(
          "{}: byte {} of the token is 0x{:02x}: expected visible ASCII (one header word)", source,
          i + 1, c));
    }
  }
  return BearerToken(sha256(token));
}

BearerToken BearerToken::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the token file", path));
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxFileBytes) {
    throw std::runtime_error(
        fmt::format("{}: expected a token of at most {} bytes, found more", path, kMaxFileBytes));
  }
  return from_text(text, path);
}

bool BearerToken::matches(std::string_view authorization) const {
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size()) return false;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kScheme[i]) return false;
  }
  if (authorization[kScheme.size()] != ' ') return false;
  const std::array<unsigned char, 32> presented =
      sha256(trimmed(authorization.substr(kScheme.size() + 1)));
  return CRYPTO_memcmp(presented.data(), digest_.data(), digest_.size()) == 0;
}

}  // namespace slicelab::k8s
