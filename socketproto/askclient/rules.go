package askclient

import (
	"context"

	"askuser/socketproto"
)

// Rules is the remembered decisions with their use (docs/contract.md §13).
func (c *Client) Rules(ctx context.Context) (socketproto.Rules, error) {
	return call[socketproto.Rules](ctx, c, socketproto.RulesRequest{})
}

// RevokeRule removes rule id, as the user on surface via.
func (c *Client) RevokeRule(ctx context.Context, id int, via socketproto.Via) error {
	_, err := call[socketproto.OK](ctx, c, socketproto.RevokeRule{ID: id, Via: via})
	return err
}
