package apply_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestCreatesFindObjectsOnLaterPages: with more Access applications and notification
// policies than one page holds, an apply whose objects exist already (made by an earlier
// run whose answer was lost, or by hand) finds them past the first page and creates no
// second copy.
func TestCreatesFindObjectsOnLaterPages(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	ctx := context.Background()
	made := map[string]string{} // step id -> the name of what it creates
	for _, acc := range p.Accounts {
		for _, st := range acc.Steps {
			if st.Kind != migrate.KindAccessAppCreate && st.Kind != migrate.KindNotificationPolicyNew {
				continue
			}
			var body map[string]any
			if err := json.Unmarshal(st.Body, &body); err != nil {
				t.Fatal(err)
			}
			for i := range 30 { // more than a page (25) of others first
				filler := map[string]any{}
				for k, v := range body {
					filler[k] = v
				}
				filler["name"] = fmt.Sprintf("filler %d of %s", i, st.ID)
				raw, _ := json.Marshal(filler)
				if err := a.client.Call(ctx, "POST", st.Path, raw, nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.client.Call(ctx, "POST", st.Path, st.Body, nil); err != nil {
				t.Fatal(err)
			}
			made[st.ID] = body["name"].(string)
		}
	}
	if len(made) == 0 {
		t.Fatal("the demo plan creates no Access application nor notification policy")
	}
	res := a.run(p, before, apply.Options{})
	for _, s := range res.Scopes {
		for _, st := range s.Steps {
			if _, ok := made[st.ID]; ok && st.Outcome != apply.OutcomeAlready {
				t.Errorf("%s: %s, want %s (the object exists on page 2)", st.ID, st.Outcome, apply.OutcomeAlready)
			}
		}
	}
	for _, acc := range p.Accounts {
		apps, policies := a.srv.Replacements(acc.AccountID)
		count := map[string]int{}
		for _, o := range append(apps, policies...) {
			name, _ := o["name"].(string)
			count[name]++
		}
		for id, name := range made {
			if count[name] > 1 {
				t.Errorf("%s: %d objects named %q", id, count[name], name)
			}
		}
	}
}
