// Package cliflag turns the flags generated from tool specs into tool
// arguments, so a tool's CLI verb and its MCP call take the same input.
package cliflag

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
)

// jsonValue is a flag value that must be JSON (object and object-list
// parameters).
type jsonValue struct{ raw json.RawMessage }

func (v *jsonValue) Set(s string) error {
	if !json.Valid([]byte(s)) {
		return errors.New("not JSON")
	}
	v.raw = json.RawMessage(s)
	return nil
}

func (v *jsonValue) String() string { return string(v.raw) }

// JSON is a flag whose value is a JSON document.
func JSON(name, usage string) cli.Flag {
	return &cli.GenericFlag{Name: name, Usage: usage, Value: &jsonValue{}}
}

// Arguments collects the flags that were set into a tool's arguments object.
// Unset flags are left out, so the schema's defaults apply.
func Arguments(c *cli.Context, flags []cli.Flag) (json.RawMessage, error) {
	args := map[string]any{}
	for _, f := range flags {
		name := f.Names()[0]
		if !c.IsSet(name) {
			continue
		}
		switch fl := f.(type) {
		case *cli.StringFlag:
			args[name] = c.String(name)
		case *cli.Int64Flag:
			args[name] = c.Int64(name)
		case *cli.Float64Flag:
			args[name] = c.Float64(name)
		case *cli.BoolFlag:
			args[name] = c.Bool(name)
		case *cli.StringSliceFlag:
			args[name] = c.StringSlice(name)
		case *cli.Int64SliceFlag:
			args[name] = c.Int64Slice(name)
		case *cli.GenericFlag:
			v, ok := fl.Value.(*jsonValue)
			if !ok {
				return nil, fmt.Errorf("flag --%s: unsupported value type", name)
			}
			if g, ok := c.Generic(name).(*jsonValue); ok {
				v = g
			}
			args[name] = v.raw
		default:
			return nil, fmt.Errorf("flag --%s: unsupported flag type %T", name, f)
		}
	}
	return json.Marshal(args)
}
