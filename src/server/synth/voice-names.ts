import type { Gender } from '@agent-tts/contract/voices.js';

type KokoroLetter = 'a' | 'b' | 'e' | 'f' | 'h' | 'i' | 'j' | 'p' | 'z';

/**
 * Given names for the generated Kokoro-style voices of the eSpeak catalog, per language letter and gender
 * (lowercase ASCII, as voice ids require). Curated names are listed too; the catalog skips duplicates.
 */
export const VOICE_NAMES: Readonly<Record<KokoroLetter, Readonly<Record<Gender, readonly string[]>>>> = {
  a: {
    female: ['aria', 'avery', 'brooke', 'chloe', 'dana', 'eliza', 'faith', 'grace', 'hannah', 'harper', 'holly', 'iris', 'jade', 'kayla', 'lauren', 'madison', 'nora', 'paige', 'quinn', 'riley'],
    male: ['aaron', 'blake', 'caleb', 'dylan', 'ethan', 'felix', 'gavin', 'hunter', 'isaac', 'jack', 'jason', 'kevin', 'logan', 'mason', 'nathan', 'owen', 'parker', 'ryan', 'tyler', 'wyatt'],
  },
  b: {
    female: ['amelia', 'beth', 'clara', 'daisy', 'ella', 'fiona', 'georgia', 'harriet', 'heidi', 'imogen', 'isla', 'jenny', 'kirsty', 'lottie', 'megan', 'niamh', 'poppy', 'rosie', 'tilly', 'victoria'],
    male: ['alfie', 'alistair', 'arthur', 'callum', 'charlie', 'daniel', 'edward', 'finlay', 'freddie', 'harry', 'hugh', 'jamie', 'lewis', 'oliver', 'oscar', 'rhys', 'rory', 'stanley', 'theo', 'william'],
  },
  e: {
    female: ['alba', 'camila', 'carmen', 'daniela', 'elena', 'gabriela', 'ines', 'isabel', 'julia', 'laura', 'marta', 'nuria', 'paula', 'pilar', 'rocio', 'sara', 'teresa', 'valeria', 'ximena', 'lola'],
    male: ['alejandro', 'alvaro', 'carlos', 'david', 'enrique', 'fernando', 'gonzalo', 'hugo', 'ignacio', 'javier', 'jorge', 'luis', 'manuel', 'mateo', 'miguel', 'pablo', 'rafael', 'sergio', 'tomas', 'raul'],
  },
  f: {
    female: ['amelie', 'anais', 'camille', 'celine', 'chloe', 'elise', 'emilie', 'helene', 'ines', 'juliette', 'lea', 'manon', 'margaux', 'mathilde', 'nathalie', 'oceane', 'pauline', 'sophie', 'zoe', 'agathe'],
    male: ['adrien', 'alexandre', 'baptiste', 'bastien', 'clement', 'damien', 'etienne', 'florian', 'guillaume', 'hugo', 'julien', 'louis', 'lucas', 'mathieu', 'nicolas', 'olivier', 'pierre', 'remi', 'thomas', 'yves'],
  },
  h: {
    female: ['aarti', 'ananya', 'anjali', 'deepa', 'divya', 'gauri', 'isha', 'kavya', 'lakshmi', 'meera', 'neha', 'nisha', 'pooja', 'radha', 'riya', 'sanya', 'shreya', 'sunita', 'tanvi', 'usha'],
    male: ['aarav', 'aditya', 'amit', 'anil', 'arjun', 'deepak', 'gaurav', 'harsh', 'karan', 'manish', 'nikhil', 'pranav', 'rahul', 'rohan', 'sanjay', 'suresh', 'vijay', 'vikram', 'vivek', 'yash'],
  },
  i: {
    female: ['alessia', 'anna', 'beatrice', 'chiara', 'elisa', 'francesca', 'giada', 'giorgia', 'giulia', 'ilaria', 'martina', 'noemi', 'paola', 'roberta', 'sara', 'serena', 'silvia', 'valentina', 'vittoria', 'aurora'],
    male: ['alessandro', 'andrea', 'antonio', 'davide', 'emanuele', 'fabio', 'federico', 'francesco', 'giovanni', 'giuseppe', 'lorenzo', 'luca', 'matteo', 'nicola', 'paolo', 'riccardo', 'simone', 'stefano', 'tommaso', 'enzo'],
  },
  j: {
    female: ['aiko', 'akari', 'ayaka', 'emi', 'hana', 'haruka', 'hina', 'kaori', 'keiko', 'mai', 'mei', 'misaki', 'nanami', 'rin', 'sakura', 'saki', 'yui', 'yuna', 'yoko', 'aoi'],
    male: ['akira', 'daiki', 'haruto', 'hiroshi', 'kaito', 'kenji', 'kenta', 'koji', 'makoto', 'minato', 'naoki', 'ren', 'riku', 'ryota', 'shota', 'sora', 'taro', 'yamato', 'yuto', 'kazuki'],
  },
  p: {
    female: ['beatriz', 'camila', 'carolina', 'clara', 'fernanda', 'gabriela', 'isabela', 'juliana', 'larissa', 'leticia', 'luana', 'mariana', 'natalia', 'patricia', 'rafaela', 'renata', 'sabrina', 'tatiana', 'vitoria', 'bruna'],
    male: ['andre', 'bruno', 'caio', 'daniel', 'eduardo', 'felipe', 'gabriel', 'gustavo', 'henrique', 'joao', 'leonardo', 'lucas', 'marcelo', 'mateus', 'paulo', 'pedro', 'rafael', 'rodrigo', 'thiago', 'vinicius'],
  },
  z: {
    female: ['ai', 'fang', 'hui', 'jia', 'jing', 'lan', 'li', 'lin', 'na', 'ning', 'ping', 'qing', 'xia', 'xiu', 'yan', 'ying', 'yu', 'yun', 'zhen', 'xue'],
    male: ['bo', 'feng', 'gang', 'hao', 'jian', 'jun', 'kai', 'lei', 'long', 'ming', 'peng', 'qiang', 'tao', 'wei', 'wen', 'xin', 'yang', 'yong', 'zhi', 'hong'],
  },
};

export const KOKORO_LETTERS = Object.keys(VOICE_NAMES) as KokoroLetter[];
