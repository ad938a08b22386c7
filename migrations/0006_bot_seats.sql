-- A seat may be taken by a computer player (docs/bots.md): its level, or NULL for a person. A
-- computer's seat still has a token hash (of a token nobody is given), so every seat is taken
-- the same way and no token can ever claim it.
ALTER TABLE seats ADD COLUMN bot TEXT CHECK (bot IS NULL OR bot IN ('random', 'easy', 'normal', 'hard'));
