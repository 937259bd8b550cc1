#include "readers/storage/url.h"

#include <algorithm>
#include <cctype>

#include <sluice/error.h>

namespace sluice {

namespace {

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

bool IsSecretParam(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  return n == "x-amz-signature" || n == "x-amz-credential" || n == "x-amz-security-token" || n == "signature" ||
         n == "x-goog-signature" || n == "x-goog-credential" || n == "sig" || n == "token" || n == "access_token";
}

}  // namespace

UrlScheme SchemeOf(std::string_view path) {
  if (StartsWithNoCase(path, "s3://")) return UrlScheme::kS3;
  if (StartsWithNoCase(path, "http://") || StartsWithNoCase(path, "https://")) return UrlScheme::kHttp;
  return UrlScheme::kLocal;
}

bool IsRemotePath(std::string_view path) { return SchemeOf(path) != UrlScheme::kLocal; }

RemoteUrl ParseRemoteUrl(const std::string& path) {
  RemoteUrl u;
  u.scheme = SchemeOf(path);
  if (u.scheme == UrlScheme::kLocal) throw Error("not a remote path: " + path);
  if (u.scheme == UrlScheme::kHttp) {
    u.url = path;
    const size_t host = path.find("//") + 2;
    if (host >= path.size() || path[host] == '/') throw Error("malformed URL (no host): " + RedactUrl(path));
    return u;
  }
  const std::string rest = path.substr(5);
  const size_t slash = rest.find('/');
  u.bucket = rest.substr(0, slash);
  u.key = slash == std::string::npos ? "" : rest.substr(slash + 1);
  if (u.bucket.empty()) throw Error("malformed S3 path (no bucket): " + path);
  u.url = "s3://" + u.bucket + "/" + u.key;
  return u;
}

std::string RedactUrl(std::string_view url) {
  std::string out(url);
  // user:password@host
  const size_t scheme_end = out.find("://");
  if (scheme_end != std::string::npos) {
    const size_t auth = scheme_end + 3;
    const size_t auth_end = out.find_first_of("/?#", auth);
    const size_t at = out.rfind('@', auth_end == std::string::npos ? out.size() : auth_end);
    if (at != std::string::npos && at >= auth) out.replace(auth, at - auth, "***");
  }
  const size_t q = out.find('?');
  if (q == std::string::npos) return out;
  std::string redacted = out.substr(0, q + 1);
  size_t pos = q + 1;
  while (pos <= out.size()) {
    size_t amp = out.find('&', pos);
    if (amp == std::string::npos) amp = out.size();
    std::string_view param(out.data() + pos, amp - pos);
    const size_t eq = param.find('=');
    if (eq != std::string_view::npos && IsSecretParam(param.substr(0, eq))) {
      redacted += std::string(param.substr(0, eq)) + "=***";
    } else {
      redacted += std::string(param);
    }
    if (amp < out.size()) redacted += '&';
    pos = amp + 1;
  }
  return redacted;
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size() * 3 / 2);
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string ParentOfPath(const std::string& path) {
  size_t min = 0;
  if (IsRemotePath(path)) {
    const size_t auth = path.find("://") + 3;
    const size_t first = path.find('/', auth);
    if (first == std::string::npos) return path + "/";
    min = first;
  }
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash < min) return "";
  return path.substr(0, slash + 1);
}

std::string JoinPath(const std::string& dir, const std::string& path) {
  if (dir.empty() || (!path.empty() && path[0] == '/') || IsRemotePath(path)) return path;
  if (dir.back() == '/') return dir + path;
  return dir + "/" + path;
}

}  // namespace sluice
