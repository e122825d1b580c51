package core

import "context"

// CallRecord receives, for one call, what the tool returned before it was
// rendered for the model: the reference's `output` (the tool's own result
// object, serialized) or `thrown` (a failure the reference throws rather
// than returns). The oracle's harness prints both; `agenttools replay`
// uses this to print them too. Nothing else needs it.
type CallRecord struct {
	// Output is the result object as JSON, nil when the call threw.
	Output []byte
	// Thrown is the failure, nil when the call returned.
	Thrown error
}

type recordKey struct{}

// WithCallRecord returns a context in which a call fills rec.
func WithCallRecord(ctx context.Context, rec *CallRecord) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

func recordOf(ctx context.Context) *CallRecord {
	rec, _ := ctx.Value(recordKey{}).(*CallRecord)
	return rec
}

// record keeps a call's result object, when someone asked for it.
func record(ctx context.Context, result any) {
	if rec := recordOf(ctx); rec != nil && rec.Output == nil {
		rec.Output, _ = MarshalJSON(result)
	}
}

func recordThrown(ctx context.Context, err error) {
	if rec := recordOf(ctx); rec != nil {
		rec.Thrown = err
	}
}
