package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkMaxLine is the longest message, in bytes with its line end, that
// the SDK's stdio transport reads (sdkWire, 3).
const sdkMaxLine = sdk.DefaultMaxLineLength

// maxID is the largest integer id the SDK echoes exactly (sdkWire, 6).
const maxID = 1<<53 - 1

// sdkWire is what Serve assumes of the MCP go-sdk's stdio wire
// (github.com/modelcontextprotocol/go-sdk v1.8.0: sdk.IOTransport, the
// JSON-RPC connection under it and sdk.Server's handling of requests),
// none of which the SDK documents or promises. The checks and spellings
// that depend on it are sdkWire's methods; the other code that relies on
// it is named below. TestSDKWire (sdkwire_test.go) checks each assumption
// against the SDK's own server, without Serve, and fails naming it when
// an SDK update changes one. Upstream issues are as of v1.8.0.
//
//  1. One message, one Write. The transport writes each message with one
//     Write on its Writer, the JSON and its "\n" together: the
//     flightWriter, writing one message at a time, puts refusals between
//     the SDK's messages, never inside one. No upstream issue found.
//
//  2. The shape of an answer. The SDK writes {"jsonrpc":"2.0","id":…,
//     "result":…} or {"jsonrpc":"2.0","id":…,"error":{"code":…,
//     "message":…}}, members in that order; refusal spells Serve's own
//     answers the same way. No upstream issue found.
//
//  3. The line limit. With MaxLineLength 0 the transport reads a message
//     of up to sdk.DefaultMaxLineLength (16 MiB, as the README says)
//     bytes, counted as its decoder reads them since the previous message
//     ended; a longer one ends the connection. The flightReader hands the
//     SDK at most one line per Read, so a line of MaxMessageBytes and its
//     "\n" is read whole; it and screen refuse a longer one. The SDK
//     offers no way to answer an over-long message and go on:
//     https://github.com/modelcontextprotocol/go-sdk/issues/984 (open)
//     asks only for the bound itself.
//
//  4. A line the SDK cannot decode ends the connection: one that is not
//     one JSON value, or is one followed by anything but its line end
//     (spaces included), or one jsonrpc.DecodeMessage refuses (no
//     "jsonrpc":"2.0", an id that is neither a number, a string nor null,
//     neither a method nor an id, nesting over 1,000 deep). screen
//     answers each, with -32700 or -32600.
//     https://github.com/modelcontextprotocol/go-sdk/issues/1209 (open;
//     fix proposed in https://github.com/modelcontextprotocol/go-sdk/pull/1210).
//
//  5. Batches. A JSON array is a batch: an empty one ends the connection,
//     and so does any once the session has negotiated protocol 2025-06-18
//     or later (the transport learns the version through an unexported
//     session hook, which conn hides: without it a batch is answered with
//     one array line). screen refuses every batch.
//     https://github.com/modelcontextprotocol/go-sdk/issues/21 (closed:
//     batches refused from 2025-06-18) and
//     https://github.com/modelcontextprotocol/go-sdk/issues/1256 (closed:
//     a batch holding a notification goes unanswered or ends the
//     connection).
//
//  6. Number ids. The SDK reads a number id as a float64, holds it as that
//     float's int64 and echoes its decimal: exactly only an integer within
//     ±(2^53-1) written without a fraction or an exponent (1.5 comes back
//     as 1, 1e2 as 100, 2^53+1 as 2^53). screen refuses any other number.
//     No upstream issue found; unmerged fixes:
//     https://github.com/modelcontextprotocol/go-sdk/pull/1178 and
//     https://github.com/modelcontextprotocol/go-sdk/pull/1253.
//
//  7. String ids. The SDK's decoder turns a byte that is not UTF-8, and a
//     lone surrogate escape, into U+FFFD, and the SDK echoes the decoded
//     string (escapes resolved). screen refuses a string id it would
//     alter. No upstream issue found.
//
//  8. The id of an answer. The Response the SDK passes to
//     Connection.Write holds the id jsonrpc.DecodeMessage gave its
//     request (an int64 or a string), and the SDK cancels the request a
//     notifications/cancelled names by jsonrpc.MakeID of its requestId:
//     idKey matches requests, answers and cancellations on that. No
//     upstream issue found.
//
//  9. An id of null. A message with a method and "id":null is a
//     notification to the SDK (its jsonrpc.ID has no null): never
//     answered, and a request's method is refused without an answer.
//     screen refuses it. https://github.com/modelcontextprotocol/go-sdk/pull/202
//     (merged) made the SDK refuse requests without a valid id; no
//     upstream issue found about answering them.
//
//  10. A message with an id and neither a method, a result nor an error is
//     taken for an answer to a request of the server's and dropped (the
//     SDK's connection has a TODO about reporting it). screen refuses it.
//     No upstream issue found.
//
//  11. Code 0. An error without a *jsonrpc.Error in its chain is sent with
//     code 0; coded gives it one.
//     https://github.com/modelcontextprotocol/go-sdk/issues/976 (closed)
//     reports such answers; no fix as of v1.8.0.
//
//  12. Before initialize. The SDK refuses every request but initialize and
//     ping (and those carrying the 2026-07-28 protocol's _meta) with such
//     an error, "method %q is invalid during session initialization"; it
//     handles initialize alone, so a request read before initialize's
//     answer is written is handled, as initialized, after it. conn's flag
//     of the session initialized (set as that answer is written) is thus
//     the SDK's. https://github.com/modelcontextprotocol/go-sdk/issues/225
//     (closed) is about this gate; no upstream issue found about its code.
//
//  13. An id in flight. The SDK drops a request whose id is still in
//     flight without an answer (it refuses the duplicate since
//     https://github.com/modelcontextprotocol/go-sdk/pull/1011, for
//     issue 1004, but keeps no id to answer it with); flight.admit
//     refuses it with the id. No upstream issue found about the answer.
//
//  14. Ids freed first. The SDK forgets a request's id before it writes
//     the answer, so a client may reuse the id as soon as it has read
//     that; flight.answering does the same. No upstream issue found.
//
//  15. Cancelled requests answered. The SDK cancels the handler of the
//     request a notifications/cancelled names and still writes its
//     answer; conn drops it, which is also what ends the request in the
//     flight. https://github.com/modelcontextprotocol/go-sdk/issues/1235
//     and https://github.com/modelcontextprotocol/go-sdk/issues/1259
//     (open; fix proposed in https://github.com/modelcontextprotocol/go-sdk/pull/1267).
//
//  16. The end of input. When its input ends the SDK cancels the requests
//     in flight and writes no answer after it; the flightReader holds the
//     end back (flight.drain) until they are answered or the grace period
//     has passed. https://github.com/modelcontextprotocol/go-sdk/issues/1061
//     (open; fix proposed in https://github.com/modelcontextprotocol/go-sdk/pull/1067).
//
// Serve also works around two behaviours it does not depend on, which
// the test does not check: the SDK runs tool handlers on contexts that
// Run's context does not end (each call is also ended by the flight's
// context), and Run, once its context ends, waits for the answers being
// written (Serve does not wait for Run).
type sdkWire struct{}

// overLong is the refusal of a message longer than MaxMessageBytes.
func (sdkWire) overLong() (code int, reason string) {
	return jsonrpc.CodeInvalidRequest, "message longer than " + strconv.Itoa(MaxMessageBytes) + " bytes"
}

// screen decodes line (one message, its line end and the spaces around
// it trimmed, not empty) as the SDK would, and returns the refusal of a
// line the SDK would end its connection on, would not answer, or would
// answer with another id than the client's (see Serve), with code != 0.
// msg is the message when the line may be passed on; id is the id member
// as the client spelled it, nil when the line is not a JSON object.
func (w sdkWire) screen(line []byte) (msg jsonrpc.Message, id json.RawMessage, code int, reason string) {
	switch {
	case len(line) > MaxMessageBytes:
		code, reason = w.overLong()
		return nil, nil, code, reason
	case !json.Valid(line):
		return nil, nil, jsonrpc.CodeParseError, "not one JSON value"
	case line[0] == '[':
		return nil, nil, jsonrpc.CodeInvalidRequest, "batches are not supported"
	case line[0] != '{':
		return nil, nil, jsonrpc.CodeInvalidRequest, "a message must be a JSON object"
	}
	id = rawID(line)
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, id, jsonrpc.CodeInvalidRequest, err.Error()
	}
	switch msg := msg.(type) {
	case *jsonrpc.Request:
		if !msg.IsCall() {
			if bytes.Equal(id, []byte("null")) {
				// The SDK reads an id of null as none: a notification,
				// which nobody answers. MCP allows no null id.
				return nil, id, jsonrpc.CodeInvalidRequest, "id must be a string or an integer, not null"
			}
			break
		}
		if n, isNumber := msg.ID.Raw().(int64); isNumber && (string(id) != strconv.FormatInt(n, 10) || n > maxID || n < -maxID) {
			return nil, id, jsonrpc.CodeInvalidRequest, "id must be a string or an integer from -" + strconv.Itoa(maxID) + " to " + strconv.Itoa(maxID) + ", written without a fraction or an exponent"
		}
		if s, isString := msg.ID.Raw().(string); isString && !sameString(id, s) {
			return nil, id, jsonrpc.CodeInvalidRequest, "id must be a string of Unicode text (no lone surrogate, no byte that is not UTF-8)"
		}
	case *jsonrpc.Response:
		// The SDK takes it for an answer to a request of its own and
		// drops it.
		if msg.Result == nil && msg.Error == nil {
			return nil, id, jsonrpc.CodeInvalidRequest, "a message with an id must have a method, a result or an error"
		}
	}
	return msg, id, 0, ""
}

// idKey spells an id as the SDK holds it (an int64 or a string), so
// that a request's, its answer's and its cancellation's match.
func (sdkWire) idKey(id jsonrpc.ID) string {
	return fmt.Sprintf("%T %v", id.Raw(), id.Raw())
}

// coded is resp as Serve sends it: an error without a JSON-RPC code,
// which the SDK would send with code 0, gets -32600 (invalid request)
// when no initialize was answered before it (the SDK's refusal of a
// request before initialize), -32603 (internal error) otherwise; any
// other resp is returned as it is.
func (sdkWire) coded(resp *jsonrpc.Response, initialized bool) *jsonrpc.Response {
	if resp.Error == nil || errors.As(resp.Error, new(*jsonrpc.Error)) {
		return resp
	}
	// Before initialize the SDK refuses every request but ping with a Go
	// error. MCP gives no code for it; -32600 (invalid request) is
	// JSON-RPC's for a request the server cannot take, as the session
	// stands. -32002 (LSP's "server not initialized") means "resource not
	// found" in MCP, -32000 is the TypeScript SDK's "connection closed"
	// (and our CodeBusy), -32602 would blame the params.
	code := int64(jsonrpc.CodeInternalError)
	if !initialized {
		code = jsonrpc.CodeInvalidRequest
	}
	coded := *resp
	coded.Error = &jsonrpc.Error{Code: code, Message: resp.Error.Error()}
	return &coded
}

// refusal is the answer to a line the SDK is not given, with its line
// end: a JSON-RPC error with code and reason, echoing id when it is a
// string or a number (else null), spelled as the SDK spells its answers.
// It is nil when it cannot be encoded.
func (sdkWire) refusal(id json.RawMessage, code int, reason string) []byte {
	var v any
	if json.Unmarshal(id, &v) != nil {
		v = nil
	}
	switch v.(type) {
	case string, float64:
	default:
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: reason}})
	if err != nil {
		return nil
	}
	return append(data, '\n')
}

// sameString reports whether the JSON string raw is s exactly: not when
// it holds a byte that is not UTF-8 or a lone surrogate escape, which the
// SDK's decoder turns into U+FFFD.
func sameString(raw json.RawMessage, s string) bool {
	if !utf8.Valid(raw) {
		return false
	}
	given := strings.Count(string(raw), "\uFFFD") + strings.Count(strings.ToLower(string(raw)), `\ufffd`)
	return strings.Count(s, "\uFFFD") <= given
}

// rawID is the id member of a message as the client spelled it (to
// echo in a refusal, and to see whether the SDK echoes it exactly),
// found by its exact key: Go's decoder would also take "ID". It stops at
// the id, which clients send before the params.
func rawID(line []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return nil
		}
		if key == "id" {
			return raw
		}
	}
	return nil
}
