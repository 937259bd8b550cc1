// Where a dataset path points: a local file, an S3 object (s3://bucket/key) or an HTTP(S) URL.
//
// Pure string work (no network): the readers ask IsRemotePath to choose between the local file
// code they had and the object-storage code (storage.h); messages name paths through RedactUrl.
#pragma once
#include <string>
#include <string_view>

namespace sluice {

enum class UrlScheme { kLocal, kHttp, kS3 };

struct RemoteUrl {
  UrlScheme scheme = UrlScheme::kLocal;
  std::string url;     // http(s): the URL as given; s3: "s3://bucket/key"
  std::string bucket;  // s3 only
  std::string key;     // s3: the object key (may be empty: a bucket root); http: unused
};

// True for "s3://", "http://" and "https://" paths (scheme compared case-insensitively).
bool IsRemotePath(std::string_view path);
UrlScheme SchemeOf(std::string_view path);
// Splits a remote path; throws sluice::Error for a malformed one (s3:// without a bucket).
RemoteUrl ParseRemoteUrl(const std::string& path);

// The URL without what may hold a secret: user:password@ and the values of the query parameters
// of presigned URLs (X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token, Signature, ...).
std::string RedactUrl(std::string_view url);

// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters (A-Z a-z 0-9 - _ . ~) kept,
// '/' kept when keep_slash, every other byte %XX (upper-case hex).
std::string UriEncode(std::string_view s, bool keep_slash);

// The folder part of a path up to and including its last '/' after the scheme's authority
// ("s3://b/x/list.txt" -> "s3://b/x/"); "" if there is none.
std::string ParentOfPath(const std::string& path);

// Joins a relative path to a folder ("" keeps the path as is; absolute local paths and remote paths
// are kept).
std::string JoinPath(const std::string& dir, const std::string& path);

}  // namespace sluice
