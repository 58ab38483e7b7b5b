package main

import (
	"errors"
	"fmt"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
)

// The commands of `taskwire admin operators`: who may act as a platform
// operator in the console, for platform operators.

func (a *adminCmd) operatorsGrant(args []string) error { return a.setOperator(args, true) }

func (a *adminCmd) operatorsRevoke(args []string) error { return a.setOperator(args, false) }

func (a *adminCmd) setOperator(args []string, grant bool) error {
	email := a.fs.String("email", "", "the email the person signs in to the console with (required)")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	if *email == "" {
		return errors.New("name the person with --email ADDRESS, the email they sign in to the console with")
	}
	resp := &adminv1.SetOperatorResponse{}
	if err := a.call("SetOperator", &adminv1.SetOperatorRequest{Email: *email, Operator: grant}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	if resp.GetOperator() {
		fmt.Fprintf(a.stdout, "%s is a platform operator: the console shows them the operator pages.\n", resp.GetAccount().GetEmail())
	} else {
		fmt.Fprintf(a.stdout, "%s is no platform operator.\n", resp.GetAccount().GetEmail())
	}
	return nil
}

func (a *adminCmd) operatorsList(args []string) error {
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	resp := &adminv1.ListOperatorsResponse{}
	if err := a.call("ListOperators", &adminv1.ListOperatorsRequest{}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	tw := newTable(a.stdout)
	fmt.Fprintln(tw, "EMAIL\tNAME\tCREATED")
	for _, o := range resp.GetOperators() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", orDash(o.GetEmail()), o.GetDisplayName(), stamp(o.GetCreateTime()))
	}
	return tw.Flush()
}
