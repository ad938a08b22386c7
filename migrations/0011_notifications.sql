-- Your-turn notifications for signed-in players (docs/protocol.md, "Notifications").

-- Where an account wants to be told that it is its move: an e-mail address and a webhook URL,
-- either or both NULL (none).
ALTER TABLE accounts ADD COLUMN notify_email TEXT;
ALTER TABLE accounts ADD COLUMN notify_webhook TEXT;

-- The seq of the action after which this seat was last notified that it is its move: a waiting
-- period is notified once, and a restart never sends it again.
ALTER TABLE seats ADD COLUMN notified_seq INTEGER;
