package replay

import (
	"testing"

	_ "github.com/agenttools/agenttools/internal/goldentest"
)

// Arguments reach the tool in the case file's key order (the reference
// validates them in that order), with every $gen expanded.
func TestExpandKeepsKeyOrder(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"path":"/w/a","content":{"$gen":"repeat","text":"ab","times":3},"limit":7}`,
			`{"path":"/w/a","content":"ababab","limit":7}`},
		{`{"z":1,"a":{"$gen":"lines","count":2,"template":"x{n}","start":5,"final":false}}`,
			`{"z":1,"a":"x5\nx6"}`},
		{`[{"$gen":"concat","parts":["a",{"$gen":"iter"},2.50]},true,null]`,
			`["a02.50",true,null]`},
	} {
		got, err := expandJSON([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("expandJSON(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`{"$gen":"nope"}`, `{"$gen":"repeat","text":"a","times":"3"}`, `{"a":1} {}`} {
		if got, err := expandJSON([]byte(bad)); err == nil {
			t.Errorf("expandJSON(%s) = %s; want an error", bad, got)
		}
	}
}
