#include "readers/storage/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include <sluice/error.h>

#include "readers/storage/url.h"

namespace sluice {

namespace {

std::atomic<int64_t> g_requests{0}, g_retries{0}, g_bytes{0};

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// One easy handle per thread: reused across requests, it keeps its connections alive.
struct ThreadHandle {
  CURL* h = nullptr;
  ThreadHandle() {
    GlobalInit();
    h = curl_easy_init();
  }
  ~ThreadHandle() {
    if (h) curl_easy_cleanup(h);
  }
};

CURL* ThisThreadHandle() {
  thread_local ThreadHandle t;
  if (!t.h) throw Error("libcurl: cannot create a handle");
  curl_easy_reset(t.h);  // options only: the connection cache stays
  return t.h;
}

struct Transfer {
  const HttpBody* body;
  HttpResult* result;
  CURL* h;
  bool status_known = false;
  size_t skip = 0;
  bool full_answer = false;  // a 200 to a ranged read into a buffer: only [skip, skip + cap) is kept
  bool done_early = false;   // ... and that part has arrived: the transfer was stopped on purpose
  bool overflow = false;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t len = size * n;
  std::string_view line(data, len);
  if (line.substr(0, 5) == "HTTP/") {
    t->result->headers.clear();  // a new response (after 100 Continue or a redirect)
    return len;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return len;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.remove_suffix(1);
  t->result->headers[name] = std::string(value);
  return len;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  if (!t->status_known) {
    curl_easy_getinfo(t->h, CURLINFO_RESPONSE_CODE, &t->result->status);
    t->status_known = true;
    if (t->result->status == 200 && t->body->dst) {
      t->skip = t->body->skip_if_full;
      t->full_answer = true;
    }
  }
  const long st = t->result->status;
  if (st < 200 || st >= 300) {
    std::string& e = t->result->error_body;
    if (e.size() < 4096) e.append(data, std::min(len, 4096 - e.size()));
    return size * n;
  }
  if (t->skip) {
    const size_t s = std::min(t->skip, len);
    t->skip -= s;
    data += s;
    len -= s;
  }
  if (t->body->str) {
    t->body->str->append(data, len);
  } else if (len) {
    if (t->full_answer) {  // a server ignoring Range: keep the asked-for part, then stop
      len = std::min(len, t->body->cap - t->result->received);
      std::memcpy(t->body->dst + t->result->received, data, len);
      t->result->received += len;
      g_bytes.fetch_add(static_cast<int64_t>(len), std::memory_order_relaxed);
      if (t->result->received == t->body->cap) {
        t->done_early = true;
        return 0;  // stops the transfer (CURLE_WRITE_ERROR, taken as success below)
      }
      return size * n;
    }
    if (!t->body->dst || t->result->received + len > t->body->cap) {
      t->overflow = true;
      return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
    }
    std::memcpy(t->body->dst + t->result->received, data, len);
  }
  t->result->received += len;
  g_bytes.fetch_add(static_cast<int64_t>(len), std::memory_order_relaxed);
  return size * n;
}

std::string Describe(const HttpResult& r) {
  if (r.status == 0) return r.transport_error;
  std::string s = "HTTP " + std::to_string(r.status);
  // S3's error XML names the reason (NoSuchKey, AccessDenied, SlowDown).
  const size_t c = r.error_body.find("<Code>");
  if (c != std::string::npos) {
    const size_t e = r.error_body.find("</Code>", c);
    if (e != std::string::npos && e - c < 80) s.append(" ").append(r.error_body, c + 6, e - c - 6);
  }
  if (!r.transport_error.empty()) s += " (" + r.transport_error + ")";
  return s;
}

std::string Seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g s", s);
  return b;
}

// Which of the three limits ended a try, in words (libcurl says only "Timeout was reached").
std::string TimeoutText(CURL* h, const HttpResult& r, const StorageOptions& opt) {
  curl_off_t connect_us = 0, total_us = 0;
  curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connect_us);
  curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total_us);
  if (connect_us == 0) return "timeout: no connection within the connect timeout (" + Seconds(opt.connect_timeout_s) + ")";
  if (static_cast<double>(total_us) >= opt.timeout_s * 1e6 * 0.99)
    return "timeout: the try took longer than SLUICE_STORAGE_TIMEOUT (" + Seconds(opt.timeout_s) + ")";
  if (r.status == 0)
    return "timeout: the server accepted the connection but sent no answer within the read timeout (" +
           Seconds(opt.stall_timeout_s) + ")";
  return "timeout: the body stopped arriving for the read timeout (" + Seconds(opt.stall_timeout_s) + ", " +
         std::to_string(r.received) + " bytes received)";
}

}  // namespace

HttpResult HttpPerformOnce(const HttpRequest& req, const HttpBody& body, const StorageOptions& opt) {
  HttpResult result;
  CURL* h = ThisThreadHandle();
  Transfer t{&body, &result, h};
  curl_slist* headers = nullptr;
  for (const std::string& hd : req.headers) headers = curl_slist_append(headers, hd.c_str());
  curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(opt.connect_timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(opt.timeout_s * 1000));
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(opt.stall_timeout_s));
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, nullptr);
  if (!opt.ca_bundle.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, opt.ca_bundle.c_str());  // byte ranges are of the stored bytes
  if (req.method == "HEAD") {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (req.method == "PUT") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body ? req.body->data() : "");
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body ? req.body->size() : 0));
  } else if (req.method != "GET") {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }
  g_requests.fetch_add(1, std::memory_order_relaxed);
  const CURLcode rc = curl_easy_perform(h);
  curl_slist_free_all(headers);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  result.status = status;
  if (t.overflow) {
    result.transport_error = "the server sent more bytes than asked for";
  } else if (rc == CURLE_OPERATION_TIMEDOUT) {
    result.transport_error = TimeoutText(h, result, opt);
  } else if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t.done_early)) {
    result.transport_error = curl_easy_strerror(rc);
  }
  return result;
}

HttpResult HttpPerformWithRetries(const std::string& what, const StorageOptions& opt,
                                  const std::function<HttpRequest(int attempt)>& make, const HttpBody& body,
                                  const std::function<bool(const HttpResult&)>& complete) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  const auto start = std::chrono::steady_clock::now();
  HttpResult last;
  int attempt = 1;
  for (;; ++attempt) {
    if (body.str) body.str->clear();
    last = HttpPerformOnce(make(attempt), body, opt);
    const bool got_2xx = last.status >= 200 && last.status < 300;
    if (got_2xx && last.transport_error.empty()) {
      if (complete(last)) return last;
      last.transport_error = "incomplete body (" + std::to_string(last.received) + " bytes received)";
    }
    const bool retryable = last.status == 0 || got_2xx || IsRetryableStatus(last.status);
    if (!retryable) break;
    if (attempt >= opt.attempts) break;
    const double wait = BackoffDelay(opt, attempt, rng);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed + wait > opt.deadline_s) break;
    g_retries.fetch_add(1, std::memory_order_relaxed);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", elapsed);
  // The tries allowed and where that number came from, when they were all used.
  const std::string budget = attempt >= opt.attempts
                                 ? " (max attempts " + std::to_string(opt.attempts) + ", from " + opt.attempts_from + ")"
                                 : "";
  throw Error("cannot read " + what + ": " + Describe(last) + " after " + std::to_string(attempt) +
              (attempt == 1 ? " attempt" : " attempts") + " in " + secs + " s" + budget);
}

HttpCounters GetHttpCounters() {
  return {g_requests.load(), g_retries.load(), g_bytes.load()};
}

void ResetHttpCounters() {
  g_requests = 0;
  g_retries = 0;
  g_bytes = 0;
}

}  // namespace sluice
