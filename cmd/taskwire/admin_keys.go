package main

import (
	"fmt"
	"io"
	"time"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
)

// The commands of `taskwire admin keys`: the token-signing keys, for
// platform operators.

func (a *adminCmd) keysRotate(args []string) error {
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	resp := &adminv1.RotateSigningKeyResponse{}
	if err := a.call("RotateSigningKey", &adminv1.RotateSigningKeyRequest{}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	fmt.Fprintf(a.stdout, "New tokens are signed with key %s.\n", resp.GetCurrent().GetKid())
	if p := resp.GetPrevious(); p != nil {
		fmt.Fprintf(a.stdout, "Tokens signed with key %s still verify until %s.\n",
			p.GetKid(), p.GetVerifyUntil().AsTime().Format(time.RFC3339))
	}
	return nil
}

func (a *adminCmd) keysList(args []string) error {
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	resp := &adminv1.ListSigningKeysResponse{}
	if err := a.call("ListSigningKeys", &adminv1.ListSigningKeysRequest{}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	return printSigningKeys(a.stdout, resp.GetKeys())
}

func printSigningKeys(w io.Writer, list []*adminv1.SigningKey) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "KID\tCREATED\tRETIRED\tVERIFIES UNTIL\tSTATE")
	for _, k := range list {
		state := "retired"
		switch {
		case k.GetCurrent():
			state = "signing"
		case k.GetVerifyUntil() != nil && !time.Now().Before(k.GetVerifyUntil().AsTime()):
			state = "expired"
		case k.GetRetireTime() == nil:
			state = "unused"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.GetKid(), stamp(k.GetCreateTime()), stamp(k.GetRetireTime()),
			stamp(k.GetVerifyUntil()), state)
	}
	return tw.Flush()
}
