import { stripCitationMarkers } from '../../text';
import { paraphraseStates, statesAnswer } from '../seed-paraphrase';

describe('statesAnswer (the audits\' lexical filter)', () => {
  const states2 = statesAnswer('how many seasons of the vampire diaries are there', '2');

  it('finds a number answer stated in the text', () => {
    expect(states2('The Vampire Diaries ran for 2 seasons on The CW.')).toBe(true);
    expect(states2('Season one was released on DVD in Regions 1, 2 and 4.')).toBe(true);
  });

  it('does not read a reference mark as stating the answer', () => {
    expect(states2('The series was renewed for an eighth season on March 11, 2016.[1] It premiered in October.[2]')).toBe(false);
    expect(states2('Filming began in July.[note 2] The finale aired in March.[b][citation needed]')).toBe(false);
    expect(paraphraseStates('how many seasons of the vampire diaries are there', '2')('It was renewed.[2]')).toBe(false);
  });

  it('keeps bracketed text that is not a reference mark', () => {
    expect(stripCitationMarkers('a list [2] of items')).toBe('a list   of items');
    expect(stripCitationMarkers('the answer [Paris, France] in brackets')).toBe('the answer [Paris, France] in brackets');
    expect(statesAnswer('what is the capital of france', 'Paris')('The capital [Paris, France] is large.')).toBe(true);
  });
});
