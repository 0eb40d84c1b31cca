package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// request is the client's one retry loop. It sends GET u at most
// Retries+1 times and hands each answer worth reading to use, which reads
// the body; the loop closes it. A 429, a 5xx, a transient network failure
// or a body cut off (a transient *readError from use) is tried again after
// a capped exponential backoff with jitter, or after the Hub's Retry-After;
// a Retry-After over MaxRetryAfter fails at once. On the last attempt a
// 429 or 5xx goes to use, whose check says how often the Hub failed.
func (h *Client) request(ctx context.Context, u *url.URL, ifNoneMatch, what string, use func(*http.Response) error) error {
	for attempt := 0; ; attempt++ {
		last := attempt >= h.Retries
		start := time.Now()
		resp, err := h.send(ctx, u, ifNoneMatch)
		var after time.Duration
		switch {
		case err != nil:
			h.log.Debug("hub request", "what", what, "attempt", attempt+1, "err", err, "took", time.Since(start))
			if ctx.Err() != nil {
				return h.ctxError(ctx, what)
			}
			if last || !transient(err) {
				return h.netError(what, err)
			}
		case retryable(resp.StatusCode) && !last:
			h.log.Debug("hub request", "what", what, "attempt", attempt+1, "status", resp.StatusCode, "took", time.Since(start))
			var ok bool
			after, ok = retryAfter(resp.Header.Get("Retry-After"), time.Now())
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if ok && after > h.MaxRetryAfter {
				return fmt.Errorf("%s: the hub at %s is busy (%s) and asks to retry after %s; try again later",
					what, h.URL(), resp.Status, after.Round(time.Second))
			}
			err = fmt.Errorf("the hub answered %s", resp.Status)
		default:
			err = use(resp)
			resp.Body.Close()
			h.log.Debug("hub request", "what", what, "attempt", attempt+1, "status", resp.StatusCode, "err", err, "took", time.Since(start))
			var re *readError
			if err == nil || last || ctx.Err() != nil || !errors.As(err, &re) || !re.transient {
				return err
			}
		}
		d := h.backoff(attempt, after)
		h.log.Info("hub retry", "what", what, "attempt", attempt+1, "err", err, "wait", d)
		if err := sleep(ctx, d); err != nil {
			return h.ctxError(ctx, "wait to retry")
		}
	}
}

// send sends one GET; the caller closes the body of the response.
func (h *Client) send(ctx context.Context, u *url.URL, ifNoneMatch string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("User-Agent", "hubsnap")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", `"`+ifNoneMatch+`"`)
	}
	return h.http.Do(req)
}

// backoff returns the wait before retry number attempt+1: Retry-After when
// the Hub sent one, else Backoff doubled attempt times, capped at
// MaxBackoff, plus a random part of up to a quarter.
func (h *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := h.MaxBackoff
	if attempt < 32 && h.Backoff<<attempt > 0 && h.Backoff<<attempt < d {
		d = h.Backoff << attempt
	}
	return d + time.Duration(rand.Int64N(int64(d)/4+1))
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// check turns a response that is not 200 into an error.
func (h *Client) check(resp *http.Response, what, notFound string) error {
	switch code := resp.StatusCode; {
	case code == http.StatusOK:
		return nil
	case code == http.StatusUnauthorized && h.token == "":
		return fmt.Errorf("%s: the hub at %s requires a token (401 Unauthorized): set HUBSNAP_TOKEN or give the context a token file", what, h.URL())
	case code == http.StatusUnauthorized:
		return fmt.Errorf("%s: the hub at %s rejected the token (401 Unauthorized): it is wrong or expired; check HUBSNAP_TOKEN or the context's token file", what, h.URL())
	case code == http.StatusForbidden:
		return fmt.Errorf("%s: the token may not do this (403 Forbidden): ask for a token with access to the project", what)
	case code == http.StatusNotFound:
		return errorf(NotFound, "%s (404)", notFound)
	case retryable(code):
		return fmt.Errorf("%s: the hub at %s answered %s %d times; giving up", what, h.URL(), resp.Status, h.Retries+1)
	default:
		return fmt.Errorf("%s: the hub at %s answered %s", what, h.URL(), resp.Status)
	}
}

func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500 && code <= 599
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		return time.Duration(min(secs, 1<<32)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// transient reports whether a network error may pass if tried again.
func transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTemporary
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(err.Error(), "connection reset")
}

// netError describes a failed request without the URL's credentials: the
// *url.Error that net/http returns repeats the whole URL.
func (h *Client) netError(what string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s: the hub at %s did not answer in time: %v", what, h.URL(), err)
	}
	return fmt.Errorf("%s: cannot reach the hub at %s: %v", what, h.URL(), err)
}

func (h *Client) ctxError(ctx context.Context, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: timed out talking to the hub at %s", what, h.URL())
	}
	return fmt.Errorf("%s: %w", what, ctx.Err())
}
