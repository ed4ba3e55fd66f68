package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-json-experiment/json/jsontext"
)

// hygiene is the input check every authenticated operation gets before huma
// decodes anything: a query parameter the operation does not declare is 400
// naming it; so is a JSON name repeated in one object or spelt in another case
// than the schema's, and a number no float64 holds is 422 naming its field
// (strict.go); no string of the path, the query, a header parameter or the
// JSON body may hold invalid UTF-8 or NUL (422 naming the field, e.g. body.content,
// path.user, query.q); a body that cannot be read (a malformed chunked encoding) is
// 400; a declared length over the operation's limit is 413 before the body is read,
// so a client that sent "Expect: 100-continue" is never told to go on.
//
// The standard JSON decoder would replace invalid UTF-8 with U+FFFD and store it;
// the drivers refuse NUL with an error that surfaced as a 500.
func hygiene(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		if bad := badParameters(ctx); len(bad) > 0 {
			_ = huma.WriteErr(api, ctx, badText.status(), "validation failed", bad...)
			return
		}
		op := ctx.Operation()
		u := ctx.URL()
		if bad := unknownQuery(op, u.Query()); len(bad) > 0 {
			_ = huma.WriteErr(api, ctx, unknownParameter.status(), "validation failed", bad...)
			return
		}
		if op.RequestBody == nil {
			next(ctx)
			return
		}
		limit := op.MaxBodyBytes
		if declared, err := strconv.ParseInt(ctx.Header("Content-Length"), 10, 64); err == nil && limit > 0 && declared >= limit {
			_ = huma.WriteErr(api, ctx, bodyTooLarge.status(), tooLarge(limit))
			return
		}
		body, failure, msg := readLimited(ctx.BodyReader(), limit)
		if failure != 0 {
			_ = huma.WriteErr(api, ctx, failure.status(), msg)
			return
		}
		if isJSON(ctx.Header("Content-Type")) {
			if d := badJSONText(body); d != nil {
				_ = huma.WriteErr(api, ctx, badText.status(), "validation failed", d)
				return
			}
			if p := strictJSON(body, api.OpenAPI().Components.Schemas, requestSchema(op)); p != nil {
				_ = huma.WriteErr(api, ctx, p.bad.status(), "validation failed", p.detail)
				return
			}
		}
		next(bufferedBody{humaContext: ctx, body: bytes.NewReader(body)})
	}
}

func tooLarge(limit int64) string {
	return fmt.Sprintf("request body is too large: it must be under %d bytes", limit)
}

// readLimited reads the whole body, under limit bytes; failure is non-zero when it
// cannot (over the limit, malformed, too slow).
func readLimited(r io.Reader, limit int64) (body []byte, failure edgeFailure, msg string) {
	if r == nil {
		return nil, 0, ""
	}
	if limit > 0 {
		r = io.LimitReader(r, limit)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			return nil, bodyTooSlow, "the request body did not arrive in time"
		}
		return nil, bodyUnreadable, "the request body could not be read (" + err.Error() +
			"); send a complete body, with a valid chunked encoding if you use one"
	}
	if limit > 0 && int64(len(body)) >= limit {
		return nil, bodyTooLarge, tooLarge(limit)
	}
	return body, 0, ""
}

// badParameters checks every path and header parameter the operation declares and
// every query parameter sent, declared or not.
func badParameters(ctx huma.Context) []error {
	var bad []error
	// The location is built only for a value that fails: this runs on every request.
	check := func(in, name, value string) {
		if msg := textProblem(value); msg != "" {
			bad = append(bad, &huma.ErrorDetail{Location: in + "." + name, Message: msg, Value: value})
		}
	}
	for _, p := range ctx.Operation().Parameters {
		switch p.In {
		case "path":
			check("path", p.Name, ctx.Param(p.Name))
		case "header":
			check("header", p.Name, ctx.Header(p.Name))
		}
	}
	u := ctx.URL()
	if u.RawQuery == "" {
		return bad
	}
	query, _ := url.ParseQuery(u.RawQuery) // an undecodable query is huma's 422 to give
	for name, values := range query {
		check("query", name, name)
		for _, v := range values {
			check("query", name, v)
		}
	}
	return bad
}

// textProblem says what is wrong with a string a client sent, or "".
func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "must not contain NUL (U+0000) characters"
	}
	return ""
}

// isJSON reports whether huma will decode a body of this type as JSON (no type at
// all is read as JSON too).
func isJSON(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// badJSONText finds the first string (name or value) of a JSON document that is
// not valid UTF-8 (raw bytes, or an escaped lone surrogate) or holds NUL, and says
// where it is. A document that is not JSON at all passes: huma's parser answers it
// with a 400 of its own.
func badJSONText(body []byte) *huma.ErrorDetail {
	strict := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true))
	for {
		tok, err := strict.ReadToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var syntax *jsontext.SyntacticError
			if !errors.As(err, &syntax) || !validIgnoringUTF8(body) {
				return nil
			}
			return &huma.ErrorDetail{Location: location(strict, syntax.JSONPointer), Message: "must be valid UTF-8"}
		}
		if tok.Kind() == '"' {
			if s := tok.String(); strings.IndexByte(s, 0) >= 0 {
				return &huma.ErrorDetail{Location: location(strict, strict.StackPointer()),
					Message: "must not contain NUL (U+0000) characters", Value: s}
			}
		}
	}
}

// validIgnoringUTF8 reports whether body is well-formed JSON once invalid UTF-8 is
// allowed, so that a strict decoder's error was about UTF-8 and nothing else.
func validIgnoringUTF8(body []byte) bool {
	lenient := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		if _, err := lenient.ReadToken(); err != nil {
			return err == io.EOF
		}
	}
}

// location turns a JSON pointer (/messages/3/content) into huma's location form
// (body.messages[3].content), asking the decoder which levels are arrays.
func location(dec *jsontext.Decoder, ptr jsontext.Pointer) string {
	var b strings.Builder
	b.WriteString("body")
	level := 0
	for tok := range ptr.Tokens() {
		level++
		kind := jsontext.Kind(0)
		if level <= dec.StackDepth() {
			kind, _ = dec.StackIndex(level)
		}
		if _, err := strconv.Atoi(tok); err == nil && kind != '{' {
			b.WriteString("[" + tok + "]")
			continue
		}
		b.WriteString("." + tok)
	}
	return b.String()
}

// bufferedBody hands huma the body hygiene already read.
type bufferedBody struct {
	humaContext
	body io.Reader
}

// humaContext names the embedded context: huma.Context has a method Context.
type humaContext = huma.Context

func (c bufferedBody) BodyReader() io.Reader { return c.body }

// Unwrap lets humago.Unwrap reach the request under the context.
func (c bufferedBody) Unwrap() huma.Context { return c.humaContext }
