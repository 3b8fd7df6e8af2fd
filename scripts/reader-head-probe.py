"""
Probe of a head on all-MiniLM-L6-v2's vectors for the judge (issue 59, decision 0410): leave-one-attack-family-out,
logistic regression (scikit-learn, every family and label weighted equally, threshold minimising FPR + FNR on the inner
out-of-family scores, rows the model never scores counted as the rule judge counts them) over
  rules                       the rule judge's 17 features,
  rules+scalars               + 7 cosines and token alignments of the claim sentence, the question and the answer,
  rules+scalars+interactions  + the element-wise products q*claim, qa*claim, answer-in-claim*answer-in-question.
Input: `npx tsx scripts/reader-vectors.ts` (OUT .eval/reader-vectors) and the per-family counts of the rows the
model never scores (support 0, long verbatim) as JSON in COUNTS. A measurement tool, not part of the product:
  python -m venv /tmp/v && /tmp/v/bin/pip install numpy scikit-learn
  COUNTS=counts.json /tmp/v/bin/python scripts/reader-head-probe.py [base] [scal] [inter]
"""
import os
import json, sys, numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
D=384
base=os.environ.get('VECTORS', os.path.join(os.path.dirname(__file__), '..', '.eval', 'reader-vectors'))
meta=[json.loads(l) for l in open(f'{base}/rows.jsonl')]
V=np.fromfile(f'{base}/vectors.f32',dtype='<f4').reshape(len(meta),6,D)
q,qa,t,c,ac,aq=[V[:,i,:] for i in range(6)]
X0=np.array([m['x'] for m in meta])
y=np.array([1 if m['poisoned'] else 0 for m in meta])
fam=np.array([m['family'] for m in meta])
al=np.array([m['align'] for m in meta])
hasA=np.array([1.0 if m['hasAnswerTokens'] else 0.0 for m in meta])
cos=lambda a,b:(a*b).sum(1)/np.maximum(np.linalg.norm(a,axis=1)*np.linalg.norm(b,axis=1),1e-9)
S=np.stack([cos(q,c),cos(qa,c),cos(q,t),cos(ac,aq)*hasA,hasA,al[:,0],al[:,1]],1)
CNT=json.load(open(os.environ['COUNTS']))
def famcount(f,lab):
    d=CNT[f]; s='pos' if lab==1 else 'neg'
    return sum(d.get(f'{k}_{s}',0) for k in ('read','zero','vl'))
def weights(idx):
    return np.array([1.0/max(famcount(f,l),1) for f,l in zip(fam[idx],y[idx])])
def phantoms(fams):
    # rows the model never scores: support 0 (score 0) and long verbatim (score 1), with their family weights
    P=[];Y=[];W=[]
    for f in fams:
        d=CNT[f]
        for k,sc in (('zero',0.0),('vl',1.0)):
            for lab,s in ((1,'pos'),(0,'neg')):
                n=d.get(f'{k}_{s}',0)
                if n: P.append(sc);Y.append(lab);W.append(n/max(famcount(f,lab),1))
    return np.array(P),np.array(Y),np.array(W)
def thr_balanced(p,yy,w):
    best=(9,0.5)
    for th in np.concatenate([np.linspace(0.01,0.1,10),np.linspace(0.12,0.98,44)]):
        fn=(w*(yy==1)*(p<th)).sum()/max((w*(yy==1)).sum(),1e-9)
        fp=(w*(yy==0)*(p>=th)).sum()/max((w*(yy==0)).sum(),1e-9)
        if fn+fp<best[0]: best=(fn+fp,th)
    return best[1]
def run(name,X,C=1.0):
    fams=sorted(set(fam)|{'trigger'}); tot=dict(tp=0,fp=0,tn=0,fn=0); per={}
    for f in fams:
        tr=np.where(fam!=f)[0]; te=np.where(fam==f)[0]
        if len(te)==0:
            d=CNT[f]; c_=dict(tp=d.get('vl_pos',0),fp=d.get('vl_neg',0),tn=d.get('zero_neg',0),fn=d.get('zero_pos',0)); per[f]=(c_,None)
            for k in tot: tot[k]+=c_[k]
            continue
        sc=StandardScaler().fit(X[tr])
        # inner out-of-family predictions for the threshold
        oof=np.zeros(len(tr))
        for g in sorted(set(fam[tr])):
            a=tr[fam[tr]!=g]; b=tr[fam[tr]==g]
            m=LogisticRegression(C=C,max_iter=2000).fit(sc.transform(X[a]),y[a],sample_weight=weights(a))
            oof[np.searchsorted(tr,b)]=m.predict_proba(sc.transform(X[b]))[:,1]
        pp,py,pw=phantoms(sorted(set(fam[tr])))
        th=thr_balanced(np.concatenate([oof,pp]),np.concatenate([y[tr],py]),np.concatenate([weights(tr),pw]))
        m=LogisticRegression(C=C,max_iter=2000).fit(sc.transform(X[tr]),y[tr],sample_weight=weights(tr))
        p=m.predict_proba(sc.transform(X[te]))[:,1]; yes=p>=th
        c_=dict(tp=int(((y[te]==1)&yes).sum()),fp=int(((y[te]==0)&yes).sum()),tn=int(((y[te]==0)&~yes).sum()),fn=int(((y[te]==1)&~yes).sum()))
        d=CNT[f]; c_['fn']+=d.get('zero_pos',0); c_['tn']+=d.get('zero_neg',0); c_['tp']+=d.get('vl_pos',0); c_['fp']+=d.get('vl_neg',0)
        per[f]=(c_,round(th,2))
        for k in tot: tot[k]+=c_[k]
    n=sum(tot.values()); print(name, 'C',C, 'acc',round((tot['tp']+tot['tn'])/n,4),'fp',tot['fp'],'fn',tot['fn'],{f:(v[0]['fp'],v[0]['fn'],v[1]) for f,v in per.items()}, flush=True)
which=sys.argv[1:] or ['base','scal','inter']
if 'base' in which: run('rules',X0)
if 'scal' in which: run('rules+scalars',np.hstack([X0,S]))
if 'inter' in which:
    for C in [0.01,0.1]:
        run('rules+scalars+interactions',np.hstack([X0,S,q*c,qa*c,ac*aq]),C)
