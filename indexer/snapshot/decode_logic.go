package snapshot

import (
	"github.com/go-json-experiment/json/jsontext"
)

// logics reads the "logics" array, one logic at a time.
func (d *decoder) logics() error {
	return d.array("logics", true, maxTopLevel, "logics", func(i int) error {
		return d.logic(i)
	})
}

// logic reads logics[i] into the scratch logic, checks it and hands it out.
// Its secrets, and every field the format does not name, are
// dropped unread.
func (d *decoder) logic(i int) error {
	l := &d.l
	*l = Logic{Params: l.Params[:0], Auth: Auth{Roles: l.Auth.Roles}}
	roles := l.Auth.Roles
	l.Auth.Roles = nil
	d.bad = false
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name": // checkLogicName rules out control characters
			l.Name, err = d.str("name", maxName, freeText)
		case "description":
			l.Description, err = d.str("description", maxComment, freeText)
		case "sql":
			l.SQL, err = d.str("sql", maxSQL, freeText)
		case "params":
			err = d.params(l)
		case "auth":
			d.push("auth")
			err = d.auth(l, roles)
			d.pop()
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad {
		return err
	}
	d.checkLogic(l)
	if d.failed {
		return nil
	}
	v := &d.lv
	*v = *l
	v.Params = list(v.Params)
	return d.hand(Part{Kind: KindLogic, Index: i, Logic: v})
}

func (d *decoder) params(l *Logic) error {
	return d.array("params", false, maxList, "params", func(_ int) error {
		var p *Param
		l.Params, p = grow(l.Params)
		*p = Param{}
		return d.param(p)
	})
}

func (d *decoder) param(p *Param) error {
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name":
			p.Name, err = d.str("name", maxName, commonName)
		case "type":
			p.Type, err = d.str("type", maxName, commonName)
		case "required":
			p.Required, _, err = d.boolean("required")
		default:
			err = d.skip()
		}
		return err
	})
	return err
}

func (d *decoder) auth(l *Logic, roles []string) error {
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "required":
			l.Auth.Required, _, err = d.boolean("required")
		case "roles":
			l.Auth.Roles, err = d.names("roles", roles, maxList, "roles")
		default:
			err = d.skip()
		}
		return err
	})
	return err
}
