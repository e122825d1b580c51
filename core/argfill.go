package core

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/agenttools/agenttools/toolspec"
)

// Filling a tool's argument struct from checked arguments.
//
// The result is what encoding/json gives when it decodes the checked
// arguments, normalized (integers spelled as integers, defaults added),
// into the struct: each argument goes to the field its json tag names.
// The kinds of field the generated argument structs use are set
// directly; any other field, and an argument no tag names exactly, goes
// through encoding/json with the text it would have had.

// fieldsByTag maps a struct type to its fields' indexes by json name.
var fieldsByTag sync.Map // reflect.Type → map[string]int

func structFields(t reflect.Type) map[string]int {
	if m, ok := fieldsByTag.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		m[name] = i
	}
	fieldsByTag.Store(t, m)
	return m
}

var (
	stringListType  = reflect.TypeFor[toolspec.StringList]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// fillArgs sets the fields of the struct dst points to.
func fillArgs(text []byte, dst reflect.Value, args []argValue) error {
	if dst.Kind() != reflect.Pointer || dst.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("arguments go to a pointer to a struct, not %s", dst.Type())
	}
	st := dst.Elem()
	fields := structFields(st.Type())
	for i := range args {
		a := &args[i]
		fi, ok := fields[a.p.Name]
		if !ok || !setField(text, st.Field(fi), a) {
			// As encoding/json would: one member, decoded into the struct.
			member, err := json.Marshal(map[string]json.RawMessage{a.p.Name: argJSON(text, a)})
			if err != nil {
				return err
			}
			if err := json.Unmarshal(member, dst.Interface()); err != nil {
				return err
			}
		}
	}
	return nil
}

// setField sets f to a's value when f is of a kind set directly, and
// says whether it was.
func setField(text []byte, f reflect.Value, a *argValue) bool {
	t := f.Type()
	if t != stringListType && (t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)) {
		return false
	}
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
		if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
			return false
		}
	}
	target := func() reflect.Value {
		if ptr {
			p := reflect.New(t)
			f.Set(p)
			return p.Elem()
		}
		return f
	}
	switch a.p.Kind {
	case toolspec.KindString, toolspec.KindEnum:
		if t.Kind() != reflect.String {
			return false
		}
		s := a.p.Default
		if a.v != nil {
			s = a.v.str(text)
		}
		target().SetString(s)
	case toolspec.KindBoolean:
		if t.Kind() != reflect.Bool || a.v == nil {
			return false
		}
		target().SetBool(a.v.kind == jsonTrue)
	case toolspec.KindInteger:
		if t.Kind() != reflect.Int64 || a.v == nil {
			return false
		}
		target().SetInt(a.n)
	case toolspec.KindStringOrList:
		if ptr || t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.String || a.v == nil {
			return false
		}
		var l reflect.Value
		if a.v.kind == jsonString {
			l = reflect.MakeSlice(t, 1, 1)
			l.Index(0).SetString(a.v.str(text))
		} else {
			l = reflect.MakeSlice(t, len(a.v.elems), len(a.v.elems))
			for i := range a.v.elems {
				l.Index(i).SetString(a.v.elems[i].str(text))
			}
		}
		f.Set(l)
	case toolspec.KindStringRecord:
		if ptr || t.Kind() != reflect.Map || t.Key().Kind() != reflect.String || t.Elem().Kind() != reflect.String || a.v == nil {
			return false
		}
		m := reflect.MakeMapWithSize(t, len(a.v.keys))
		for i, k := range a.v.keys {
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), reflect.ValueOf(a.v.elems[i].str(text)).Convert(t.Elem()))
		}
		f.Set(m)
	case toolspec.KindArray:
		if ptr || t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Struct || a.v == nil {
			return false
		}
		l := reflect.MakeSlice(t, len(a.elems), len(a.elems))
		for i, elem := range a.elems {
			if err := fillArgs(text, l.Index(i).Addr(), elem); err != nil {
				return false
			}
		}
		f.Set(l)
	default:
		return false
	}
	return true
}

// argJSON is a's value as JSON text, normalized: an integer spelled as an
// integer, a default as a string, each element of a KindArray with its
// defaults.
func argJSON(text []byte, a *argValue) json.RawMessage {
	switch {
	case a.v == nil:
		b, _ := json.Marshal(a.p.Default)
		return b
	case a.p.Kind == toolspec.KindInteger:
		return strconv.AppendInt(nil, a.n, 10)
	case a.p.Kind == toolspec.KindArray:
		elems := make([]map[string]json.RawMessage, len(a.elems))
		for i, elem := range a.elems {
			elems[i] = map[string]json.RawMessage{}
			for j := range elem {
				elems[i][elem[j].p.Name] = argJSON(text, &elem[j])
			}
		}
		b, _ := json.Marshal(elems)
		return b
	}
	return text[a.v.start:a.v.end]
}
