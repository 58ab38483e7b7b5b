package main

import (
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	adminv1 "github.com/taskwire/taskwire/api/taskwire/admin/v1"
)

// The commands of `taskwire admin boards`: a tenant's boards.

func (a *adminCmd) boardsCreate(args []string) error {
	name := a.fs.String("name", "", "the board's display name (default the slug)")
	rules := a.fs.String("rules", "", "the board's standing rules, in Markdown")
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	req := &adminv1.CreateBoardRequest{Tenant: a.tenant, Board: pos[0], Name: *name}
	if req.Name == "" {
		req.Name = pos[0]
	}
	if *rules != "" {
		req.Rules = rules
	}
	resp := &adminv1.CreateBoardResponse{}
	if err := a.call("CreateBoard", req, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	return printBoards(a.stdout, []*adminv1.Board{resp.GetBoard()})
}

func (a *adminCmd) boardsList(args []string) error {
	archived := a.fs.Bool("archived", false, "also list archived boards")
	if _, err := a.parse(args, 0, 0); err != nil {
		return err
	}
	all := &adminv1.ListBoardsResponse{}
	for page := ""; ; {
		resp := &adminv1.ListBoardsResponse{}
		if err := a.call("ListBoards", &adminv1.ListBoardsRequest{Tenant: a.tenant, IncludeArchived: *archived, PageToken: page}, resp); err != nil {
			return err
		}
		all.Boards = append(all.Boards, resp.GetBoards()...)
		if page = resp.GetNextPageToken(); page == "" {
			break
		}
	}
	if a.asJSON {
		return a.printJSON(all)
	}
	return printBoards(a.stdout, all.GetBoards())
}

func (a *adminCmd) boardsArchive(args []string) error   { return a.setArchived(args, true) }
func (a *adminCmd) boardsUnarchive(args []string) error { return a.setArchived(args, false) }

// setArchived archives the board named in args, or brings it back.
func (a *adminCmd) setArchived(args []string, archived bool) error {
	pos, err := a.parse(args, 1, 1)
	if err != nil {
		return err
	}
	resp := &adminv1.ArchiveBoardResponse{}
	if err := a.call("ArchiveBoard", &adminv1.ArchiveBoardRequest{Tenant: a.tenant, Board: pos[0], Archived: proto.Bool(archived)}, resp); err != nil {
		return err
	}
	if a.asJSON {
		return a.printJSON(resp)
	}
	if archived {
		fmt.Fprintf(a.stdout, "archived board %s: its tasks can still be read, but it takes no new tasks, moves or imports (taskwire admin boards unarchive %s brings it back)\n", pos[0], pos[0])
	} else {
		fmt.Fprintf(a.stdout, "board %s is in use again\n", pos[0])
	}
	return nil
}

func printBoards(w io.Writer, list []*adminv1.Board) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "SLUG\tNAME\tDEFAULT\tCREATED\tARCHIVED")
	for _, b := range list {
		def := "-"
		if b.GetIsDefault() {
			def = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", b.GetSlug(), b.GetName(), def, stamp(b.GetCreateTime()), stamp(b.GetArchiveTime()))
	}
	return tw.Flush()
}
